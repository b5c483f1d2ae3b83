# mcpx as one replica of a team's gateway (docs/team.md "Deployment"): `mcpx daemon` on 0.0.0.0:8899,
# its settings from MCPX_* environment variables (docs/settings.md), its secrets too (MCPX_STORE_URL,
# MCPX_STORE_KEY, from a Kubernetes Secret or `docker run --env-file`), its servers in /etc/mcpx/mcp.json
# (a mounted ConfigMap; `${env:NAME}` in it reads a variable). Nothing secret is baked into the image.
# test/dockerfile.test.ts reads this file as text.

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN node esbuild.mjs

FROM node:20-bookworm-slim
# The bundles are self-contained: no node_modules in the image.
WORKDIR /opt/mcpx
COPY --from=build /src/dist/ ./dist/
COPY --from=build /src/package.json ./package.json
RUN useradd --system --uid 10001 --home-dir /var/lib/mcpx --create-home mcpx \
 && mkdir -p /etc/mcpx && chown mcpx /etc/mcpx
ENV MCPX_ADDRESS=0.0.0.0 \
    MCPX_PORT=8899 \
    XDG_STATE_HOME=/var/lib/mcpx/state \
    XDG_CONFIG_HOME=/etc
USER 10001
EXPOSE 8899
# /ready: 200 while the store answers (docs/team.md "Health and readiness").
HEALTHCHECK --interval=10s --timeout=3s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8899/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/opt/mcpx/dist/cli.js"]
CMD ["daemon", "--config", "/etc/mcpx/mcp.json"]
