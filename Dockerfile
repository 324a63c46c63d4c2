# Velo Admin server image: the API, the built web app and (without MQTT_URL) the embedded broker.
# Not built on the machines this was written on (no image registry there): see docs/ops/deploy.md.
#
#   docker build -t velo-admin:<version> .
#
# Debian (glibc) on purpose: better-sqlite3 and @node-rs/argon2 are native modules, and the runtime
# must have the libc they were built or downloaded for. Every stage uses the same base image.
ARG NODE_IMAGE=node:22-bookworm-slim

# --- toolchain: what node-gyp needs when better-sqlite3 finds no prebuilt binary to download ---
FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# npm ci checks the lock file against every workspace, so every package.json comes first; sources
# come later so that a code change does not reinstall the dependencies.
COPY package.json package-lock.json .npmrc ./
COPY packages/shared/package.json packages/shared/
COPY packages/server/package.json packages/server/
COPY packages/web/package.json packages/web/
COPY packages/device-sim/package.json packages/device-sim/

# --- deps: everything, dev dependencies included (vite, esbuild, typescript) ---
FROM toolchain AS deps
RUN npm ci --no-audit --no-fund

# --- build: the web app (packages/web/dist) and the server bundle (packages/server/dist/main.js) ---
FROM deps AS build
COPY . .
RUN npm run build

# --- prod-deps: only the server's production dependencies (no React, antd, vite, vitest, tsx) ---
# The bundle holds @velo/shared; every other import stays external (packages/server/build.mjs).
FROM toolchain AS prod-deps
RUN npm ci --omit=dev --workspace=packages/server --no-audit --no-fund

# --- runtime ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
  PORT=8080 \
  HOST=0.0.0.0 \
  DATA_DIR=/data
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=prod-deps /app/package.json ./package.json
COPY --from=build /app/packages/shared/package.json ./packages/shared/package.json
COPY --from=build /app/packages/server/package.json ./packages/server/package.json
COPY --from=build /app/packages/server/dist ./packages/server/dist
# The server finds the web app two levels above its bundle (packages/web/dist); WEB_DIR is not needed.
COPY --from=build /app/packages/web/dist ./packages/web/dist
# The image's own user (uid 1000): the code is root's and read-only to it; /data (DATA_DIR) is its
# only writable place (the SQLite file velo.db, files/, mail/, backups/). The folders exist in the
# image owned by that user, so an empty named volume mounted on one of them starts with the same
# owner (and mail/ with its mode, 0700: reset codes); a host folder mounted there must be chown
# 1000:1000 by the operator.
RUN mkdir -p /data/files /data/mail && chmod 0700 /data/mail && chown -R node:node /data
USER node
# 8080: HTTP (the console, the API, /health, /metrics with METRICS_TOKEN). 1883 only matters for a
# single instance with the embedded broker (MQTT_URL unset); with EMQX nothing listens there.
EXPOSE 8080 1883
# Liveness only (the process answers). Readiness (/health/ready: database, Redis, broker, migrations,
# jobs) is for the load balancer and the orchestrator, which compose.yaml sets per service.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "packages/server/dist/main.js"]
