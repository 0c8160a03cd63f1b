# syntax=docker/dockerfile:1
# Multi-stage build of the monitor. No Docker engine runs where this project is developed, so this
# file is kept correct by reading; see README.md "Container".

# --- build: compile the server and the dashboard -------------------------------------------------
FROM node:24-bookworm-slim AS build
# better-sqlite3 compiles from source when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ git ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# @scarf/scarf (under swagger-ui-dist) reports installs to scarf.sh unless told not to.
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
# The postinstall step builds the project's ICMP addon (native/icmp) with node-gyp.
COPY native ./native
RUN npm install --no-audit --no-fund
COPY . .
# Build identity for builds without .git in the context (docker build --build-arg ...).
ARG MONITOR_BUILD=""
ARG MONITOR_COMMIT=""
ARG MONITOR_BUILD_DATE=""
ARG MONITOR_BUILD_CHANNEL=""
RUN MONITOR_BUILD="$MONITOR_BUILD" MONITOR_COMMIT="$MONITOR_COMMIT" MONITOR_BUILD_DATE="$MONITOR_BUILD_DATE" \
    MONITOR_BUILD_CHANNEL="$MONITOR_BUILD_CHANNEL" npm run build

# --- deps: production dependencies only (native modules compiled here) ---------------------------
FROM node:24-bookworm-slim AS deps
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
COPY native ./native
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime --------------------------------------------------------------------------------------
FROM node:24-bookworm-slim
# A 2 MiB young generation and two malloc arenas keep a 1,000-sensor monitor under 200 MiB (Node 24).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=2 \
    MALLOC_ARENA_MAX=2 \
    MONITOR_DATA_DIR=/data \
    MONITOR_LISTEN=0.0.0.0:8080 \
    PUID=500 \
    PGID=500 \
    UMASK=022
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=deps /app/native/icmp/build/Release/icmp.node ./native/icmp/build/Release/icmp.node
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY config/monitor.example.yaml ./config/monitor.example.yaml
RUN ln -s /app/dist/apps/monitor/main.js /usr/local/bin/monitor && mkdir -p /data
VOLUME /data
EXPOSE 8080
# Starts as root on purpose: the process creates /data, hands it to PUID:PGID and drops to that
# identity itself (set PUID=0 to stay root).
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 CMD ["monitor", "healthcheck"]
ENTRYPOINT ["monitor"]
CMD ["serve"]
