// `npm run check:wiremock-java`: compiles scripts/wiremock_java/Client.java against the
// standalone jar of the `wiremock` devDependency, starts `stubtool serve` on a free loopback
// port, and runs the client against it; exits with the client's code. Needs Java 17 (javac);
// not part of `npm test`, which needs no Java.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const JAR = join(ROOT, "node_modules", "wiremock", "build", "wiremock-standalone-3.13.2.jar");
const DENO = join(ROOT, "node_modules", ".bin", "deno");

function fail(message) {
  console.error(`[ERROR] ${message}`);
  process.exit(2);
}

if (!existsSync(JAR)) fail(`${JAR} is missing: run npm ci (the wiremock devDependency ships it)`);
if (spawnSync("javac", ["-version"]).error) {
  fail("javac is not on PATH: install a JDK 17 (apt-get install openjdk-17-jdk-headless)");
}

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const out = mkdtempSync(join(tmpdir(), "stubtool-java-"));
try {
  const javac = spawnSync("javac", ["-cp", JAR, "-d", out, join(ROOT, "scripts", "wiremock_java", "Client.java")], {
    stdio: "inherit",
  });
  if (javac.status !== 0) fail("javac failed");
  // A served WireMock folder, for saveMappings() to write into.
  const folder = join(out, "wiremock");
  mkdirSync(join(folder, "mappings"), { recursive: true });
  const args = ["run", "-A", join(ROOT, "cli.ts"), "serve", "--port", String(port), "--quiet", "--wiremock", folder];
  const server = spawn(DENO, args, {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const wait = spawnSync(DENO, ["run", "-A", join(ROOT, "cli.ts"), "wait", "--url", `http://127.0.0.1:${port}`], {
    stdio: "inherit",
  });
  if (wait.status !== 0) {
    server.kill("SIGTERM");
    fail("stubtool did not start");
  }
  const client = spawnSync("java", ["-cp", `${JAR}:${out}`, "Client", String(port), folder], { stdio: "inherit" });
  server.kill("SIGTERM");
  process.exitCode = client.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
