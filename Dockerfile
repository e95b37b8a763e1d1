# tollgate: the gateway image used by docker-compose.yml.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY channels ./channels
COPY migrations ./migrations
COPY scripts ./scripts
# npm install builds dist/ itself (the prepare script), so the sources come first.
RUN npm install --no-audit --no-fund && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production TOLLGATE_DB=/data/tollgate.db HOST=0.0.0.0 PORT=8787
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY migrations ./migrations
VOLUME ["/data"]
EXPOSE 8787
USER node
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:8787/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/tollgate.js"]
CMD ["serve"]
