# syntax=docker/dockerfile:1
# One image for every process of the system; the command picks the process:
#   node gateway/dist/main.js             HTTP 8080, metrics 9464
#   node services/records/dist/main.js    gRPC 50051, metrics 9465
#   node services/plans/dist/main.js      gRPC 50052, metrics 9466
#   node services/webhooks/dist/main.js   gRPC 50053, metrics 9467 (WEBHOOKS_ROLES picks admin,consumer,worker)
#   node console/dist/main.js             HTTP 8090, metrics 9468 (the Developers area)
#   node console/dist/devMailboxMain.js   a local SMTP sink for the console (compose only)
#   node services/{records,plans,webhooks}/dist/migrate.js   one schema's migrations, then exit
#   brandctl ...                          the operator CLI (ADMIN_TOKEN; or an API key for
#                                         events follow); cli/bin is on the PATH
# Build: docker build -t brand-records .   (pin NODE_IMAGE by digest in a release pipeline)
#
# tini is PID 1: it forwards SIGTERM/SIGINT to node and reaps zombies, so every process,
# brandctl and the migrations included, stops on the first signal. Kubernetes keeps it as long
# as the chart sets `args` (not `command`), which it does.

ARG NODE_IMAGE=node:20-bookworm-slim

# Workspace manifests and the lock: the only inputs of `npm ci`, so both install layers
# stay cached until a manifest changes. Every workspace of the root package.json is listed.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY proto/package.json proto/
COPY packages/shared/package.json packages/shared/
COPY packages/testkit/package.json packages/testkit/
COPY services/records/package.json services/records/
COPY services/plans/package.json services/plans/
COPY services/webhooks/package.json services/webhooks/
COPY gateway/package.json gateway/
COPY console/package.json console/
COPY cli/package.json cli/
COPY sdk/typescript/package.json sdk/typescript/
COPY examples/receiver/package.json examples/receiver/
COPY examples/relay/package.json examples/relay/

# Compiles every workspace (`npm run build` is the one list of what to build). `npm ci`
# installs exactly the lock, on any platform (it holds every supported platform's binaries,
# which `npm run lock:check` keeps true), and fails rather than resolve anything anew.
FROM manifests AS build
RUN npm ci --no-audit --no-fund --loglevel=error
COPY tsconfig.base.json ./
COPY proto proto
COPY packages packages
COPY services services
COPY gateway gateway
COPY console console
COPY cli cli
COPY sdk sdk
COPY examples examples
RUN npm run build

# Production dependencies only: no compilers, linters or test tools in the runtime image.
FROM manifests AS prod-deps
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="brand-records" \
      org.opencontainers.image.description="Brand Records Service: gateway, records, plans, webhooks, console, brandctl and migrations" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
# libjemalloc2: an allocator the webhooks workers can be given where memory is tighter than CPU
# (LD_PRELOAD, docs/operating.md "The worker's memory"); nothing loads it unless asked.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini libjemalloc2 \
    && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
# Owned by root and read-only to the runtime user: the container runs with a read-only root
# filesystem in Kubernetes, and nothing under /app is ever written.
COPY --from=prod-deps /app ./
COPY --from=build /app/proto/dist proto/dist
COPY --from=build /app/packages/shared/dist packages/shared/dist
COPY --from=build /app/services/records/dist services/records/dist
COPY --from=build /app/services/records/migrations services/records/migrations
COPY --from=build /app/services/plans/dist services/plans/dist
COPY --from=build /app/services/plans/migrations services/plans/migrations
COPY --from=build /app/services/webhooks/dist services/webhooks/dist
COPY --from=build /app/services/webhooks/migrations services/webhooks/migrations
COPY --from=build /app/gateway/dist gateway/dist
COPY --from=build /app/console/dist console/dist
COPY console/public console/public
COPY --from=build /app/cli/dist cli/dist
COPY cli/bin cli/bin
# brandctl's events follow reads the API with the official client (an API key, no gRPC).
COPY --from=build /app/sdk/typescript/dist sdk/typescript/dist
# `docker run <image> brandctl ...` and `kubectl exec ... -- brandctl ...`, as in a checkout.
ENV PATH=/app/cli/bin:$PATH
# Health check for docker-compose (Kubernetes uses native gRPC probes instead).
COPY deploy/docker/grpcHealthcheck.cjs deploy/docker/grpcHealthcheck.cjs
# Numeric UID/GID (the image's `node` user), so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 8080 9464 50051 9465 50052 9466 50053 9467 8090 9468
ENTRYPOINT ["/usr/bin/tini", "--"]
# The gateway, with the V8 heap flags BENCHMARKS.md explains ("Memory"; issue 25, sixth pass).
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=100", "--no-allocation-site-pretenuring", "gateway/dist/main.js"]
