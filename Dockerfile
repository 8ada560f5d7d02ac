# syntax=docker/dockerfile:1
# Build stage: compile TypeScript and the better-sqlite3 native addon, then drop dev dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

# Runtime stage: no compiler, no dev dependencies, not root.
FROM node:20-bookworm-slim
# The image's config asks for a token from the secret /run/secrets/toolwatch_token (config/container.yaml).
# glibc's allocator, as `npm start` sets it: two arenas and fixed thresholds, so freed memory goes back
# to the system (docs/operations.md, "Node flags": about 40 MB less RSS at peak).
ENV NODE_ENV=production \
    GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=262144:glibc.malloc.trim_threshold=4194304 \
    HOST=0.0.0.0 \
    PORT=4318 \
    DATABASE_URL=/var/lib/toolwatch/toolwatch.db \
    TOOLWATCH_CONFIG=/app/config/container.yaml
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The judge's versioned prompt texts are read at runtime (dist/judge/prompt-file.js looks in src/judge/prompts).
COPY --from=build /app/src/judge/prompts ./src/judge/prompts
# config/ also carries the eval suites (config/eval/shop, config/eval/support).
COPY config ./config
# `toolwatch …` (eval, judge, labels) on the PATH: docker run --rm toolwatch toolwatch eval selftest
RUN chmod +x dist/cli.js && ln -s /app/dist/cli.js /usr/local/bin/toolwatch \
 && mkdir -p /var/lib/toolwatch && chown node:node /var/lib/toolwatch
USER node
EXPOSE 4318
VOLUME ["/var/lib/toolwatch"]
HEALTHCHECK --interval=30s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4318)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM drains in-flight batches before the store closes.
STOPSIGNAL SIGTERM
# A larger young generation (ingest allocates many short-lived objects per batch), an old generation
# that grows by the live heap between major GCs, not by up to four times it, and array buffers swept by
# the thread that collects them (docs/operations.md, "Node flags"). The same as `npm start`.
CMD ["node", "--enable-source-maps", "--max-semi-space-size=32", "--heap-growing-percent=100", "--no-concurrent-array-buffer-sweeping", "dist/main.js"]
