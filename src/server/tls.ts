/**
 * HTTPS: certificate files, or a certificate made at start for `localhost`,
 * `127.0.0.1` and `::1` (`--tls-self-signed`) that clients can be told to trust
 * (`--tls-cert-out`). The key pair comes from WebCrypto; the certificate is built and
 * signed by `node-forge`, loaded only when one is asked for.
 * @module
 */

/** A certificate chain and its private key, both PEM. */
export interface TlsFiles {
  /** The certificate (chain), PEM. */
  cert: string;
  /** The private key, PEM (PKCS#8 or the key's own format). */
  key: string;
}

/** PEM text for DER bytes. */
function pem(label: string, der: Uint8Array): string {
  let binary = "";
  for (const byte of der) binary += String.fromCharCode(byte);
  return `-----BEGIN ${label}-----\n${btoa(binary).match(/.{1,64}/g)!.join("\n")}\n-----END ${label}-----\n`;
}

/**
 * A self-signed certificate for `localhost`, `127.0.0.1` and `::1`, valid for a year from
 * a minute ago, with a 2048-bit RSA key (what every TLS client accepts).
 *
 * @example
 * ```ts
 * import { selfSignedCertificate } from "./tls.ts";
 * const { cert } = await selfSignedCertificate();
 * console.log(cert.startsWith("-----BEGIN CERTIFICATE-----")); // true
 * ```
 */
export async function selfSignedCertificate(): Promise<TlsFiles> {
  const { default: forge } = await import("node-forge");
  const pair = await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  );
  const key = pem("PRIVATE KEY", new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey)));
  const privateKey = forge.pki.privateKeyFromPem(key) as import("node-forge").pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  // A positive serial number: 16 random bytes, the first one below 0x80.
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] &= 0x7f;
  cert.serialNumber = [...serial].map((b) => b.toString(16).padStart(2, "0")).join("");
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  const name = [{ name: "commonName", value: "localhost" }, { name: "organizationName", value: "stubtool" }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: [{ type: 2, value: "localhost" }, { type: 7, ip: "127.0.0.1" }, { type: 7, ip: "::1" }],
    },
  ]);
  cert.sign(privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert).replaceAll("\r\n", "\n"), key };
}
