FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm workspaces: the TypeScript client's manifest is part of the install.
COPY clients/typescript/package.json clients/typescript/
# Fixes to dependencies (patch-package, run by npm's postinstall): see patches/.
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
# The same build as `npm start` and `npm test` (the service, its tests and the TypeScript client); the
# runtime stage below takes only the service's part of it and the production dependencies.
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/migrations ./dist/migrations
COPY package.json ./
# Media and temp files; owned by the runtime user so a fresh volume mounted here is writable.
RUN mkdir -p /data/storage && chown node:node /data/storage
ENV STORAGE_DIR=/data/storage
USER node
EXPOSE 3000
ENV HEAP_LIMIT_MB=256 SEMI_SPACE_MB=8
CMD ["sh", "-c", "exec node --max-old-space-size=$HEAP_LIMIT_MB --max-semi-space-size=$SEMI_SPACE_MB dist/src/main.js"]
