# ynab-mcp as a container image, for hosted mode (compose.yaml) or any other use of the CLI.
# Built from this checkout, so the image runs exactly the code and flags of the repository.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY . .
# npm ci builds nothing (the package has no install scripts): build dist/, then drop the dev dependencies.
RUN npm ci && npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 8787
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["--help"]
