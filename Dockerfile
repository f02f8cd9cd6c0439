# One image for every process of the system; the command picks the process:
#   node gateway/dist/main.js | node services/records/dist/main.js | node services/plans/dist/main.js
#   node services/records/dist/migrate.js | node services/plans/dist/migrate.js | node cli/bin/brandctl.js ...
# Build: docker build -t brand-records .

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json ./
COPY proto/package.json proto/
COPY packages/shared/package.json packages/shared/
COPY packages/testkit/package.json packages/testkit/
COPY services/records/package.json services/records/
COPY services/plans/package.json services/plans/
COPY gateway/package.json gateway/
COPY cli/package.json cli/
COPY examples/receiver/package.json examples/receiver/
COPY examples/relay/package.json examples/relay/
RUN npm install --no-audit --no-fund
COPY proto proto
COPY packages packages
COPY services services
COPY gateway gateway
COPY cli cli
RUN npx tsc -b gateway services/records services/plans cli

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY proto/package.json proto/
COPY packages/shared/package.json packages/shared/
COPY packages/testkit/package.json packages/testkit/
COPY services/records/package.json services/records/
COPY services/plans/package.json services/plans/
COPY gateway/package.json gateway/
COPY cli/package.json cli/
COPY examples/receiver/package.json examples/receiver/
COPY examples/relay/package.json examples/relay/
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/proto/dist proto/dist
COPY --from=build /app/packages/shared/dist packages/shared/dist
COPY --from=build /app/services/records/dist services/records/dist
COPY --from=build /app/services/records/migrations services/records/migrations
COPY --from=build /app/services/plans/dist services/plans/dist
COPY --from=build /app/services/plans/migrations services/plans/migrations
COPY --from=build /app/gateway/dist gateway/dist
COPY --from=build /app/cli/dist cli/dist
COPY cli/bin cli/bin
USER node
EXPOSE 8080 50051 50052
CMD ["node", "gateway/dist/main.js"]
