// `--connect ssh://[user@]host[:port]`: the ssh command that runs mcpx's stdio shim on that host, onto the
// gateway there (its own auto resolution); no port is opened and ssh is the only credential
// (docs/gateway.md "MCP over ssh"). `mcpx serve` pipes a client through it; `mcpx tools`, `call`, `read`
// and `exec` speak MCP over it (cli/client.ts). No dependency beyond the URL: the shim's bundle holds it.

export interface SshShim {
  /** `ssh` and its arguments. */
  argv: string[];
  /** What the log says it goes through: `ssh://user@host:port`. */
  via: string;
}

/** `remote` is shim.sshCommand (space-separated words: mcpx on the far host); `profile`, the far gateway's
 *  profile the shim serves (docs/gateway.md "Profiles"). */
export function sshShim(url: URL, remote: string, profile?: string): SshShim {
  // An IPv6 host loses its URL brackets; `--` before the destination, so a host or user that starts with
  // "-" is never read as an ssh option.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const target = url.username ? `${decodeURIComponent(url.username)}@${host}` : host;
  const args = ['-T', '-o', 'BatchMode=yes', ...(url.port ? ['-p', url.port] : []), '--', target];
  args.push(...remote.split(' ').filter(Boolean), 'serve', '--transport', 'stdio');
  if (profile) args.push('--profile', profile);
  return { argv: ['ssh', ...args], via: `ssh://${target}${url.port ? `:${url.port}` : ''}` };
}
