// Settings of installing from an MCP Registry (docs/registry.md): which registry, how long a request may
// take, which package hosts beyond the official registry's own are allowed.
import { D, type SettingDef } from './def';

export const REGISTRY: readonly SettingDef[] = [
  D(
    'registry.url',
    'string',
    'https://registry.modelcontextprotocol.io',
    'The MCP Registry `mcpx registry`, `mcpx install` and Add Server… read (API v0.1); a sub-registry serving the same API works unchanged. `--registry URL` overrides it for one command.',
  ),
  D(
    'registry.timeout',
    'duration',
    10_000,
    'Longest one request to the registry may take; past it, a cached answer is served (and said to be stale) or the command fails naming the registry.',
  ),
  D(
    'registry.packageHosts',
    'list',
    [],
    "Package hosts allowed besides the official registry's own (registry.npmjs.org, pypi.org, api.nuget.org, docker.io, ghcr.io, *.pkg.dev, *.azurecr.io, mcr.microsoft.com; mcpb downloads from github.com and gitlab.com): a host name or `*.domain`, with `:port` where it is not the default. A package from any other host is refused.",
  ),
];
