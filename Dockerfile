# stubtool container: a standalone binary on a distroless base.
#
#   docker build -t stubtool .
#   docker run --rm -p 8080:8080 -v "$PWD/examples:/config:ro" stubtool
#
# /config/stubs.yaml is loaded when it exists (mount a directory holding it at /config);
# STUBTOOL_CONFIG names another file. STUBTOOL_PORT sets the port, and the health check
# (`stubtool wait`) follows it. Arguments after the image name replace CMD:
#   docker run --rm -p 9000:9000 -e STUBTOOL_PORT=9000 stubtool serve --quiet
#
# TLS: mount a certificate and key and name them; serve answers https, and the health check
# (and `stubtool report`/`stubs` inside the container) reach https://localhost:$STUBTOOL_PORT:
#   docker run --rm -p 8443:8080 -v "$PWD/certs:/certs:ro" \
#     -e STUBTOOL_TLS_CERT=/certs/cert.pem -e STUBTOOL_TLS_KEY=/certs/key.pem stubtool

# ---- build: compile the CLI with the Deno that package-lock.json pins ----
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY deno.json mod.ts cli.ts ./
COPY src ./src
COPY scripts/compile.ts ./scripts/
# scripts/compile.ts runs `deno compile` with the CLI's permissions and without dev-only
# node_modules. It downloads the matching `denort` runtime; offline, COPY one into this
# stage and pass --build-arg DENORT_BIN=/path/to/denort.
ARG TARGETARCH=amd64
ARG DENORT_BIN
RUN case "$TARGETARCH" in \
      amd64) target=x86_64-unknown-linux-gnu ;; \
      arm64) target=aarch64-unknown-linux-gnu ;; \
      *) echo "unsupported architecture $TARGETARCH (amd64 or arm64)" >&2; exit 1 ;; \
    esac \
 && ./node_modules/.bin/deno run -A scripts/compile.ts --target "$target" --out /out \
 && cp "/out/stubtool-$target" /stubtool \
 && /stubtool --version

# ---- runtime: glibc (deno-compiled binaries need it), no shell, non-root ----
FROM gcr.io/distroless/cc-debian12
COPY --from=build /stubtool /stubtool
ENV STUBTOOL_PORT=8080 STUBTOOL_HOST=0.0.0.0
EXPOSE 8080
USER nonroot
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 CMD ["/stubtool", "wait", "--timeout", "2"]
ENTRYPOINT ["/stubtool"]
CMD ["serve"]
