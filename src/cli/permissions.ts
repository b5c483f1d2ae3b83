// `mcpx permissions` (docs/gateway.md "Permissions"): the rules in force — the config file's, or with
// --endpoint URL a running gateway's (GET /v1/permissions) — and, for `SERVER TOOL [--client NAME]`, which
// rule decides and why; `grants` lists every "always allow" of a running gateway and `revoke ID` removes
// one (DELETE /v1/permissions/grants/{id}).
import { type Permissions, ALLOW_ALL } from '../config/permissions';
import type { Grant } from '../gateway/permissions/approval';
import { decide, describeRule } from '../gateway/permissions/rules';
import { printable } from '../kit/printable';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { configOf, reportIssues } from './config';
import { gatewayV1 } from './v1';

export const permissions: Command = {
  usage: [
    ['permissions [--config FILE | --endpoint URL]', 'print the permission rules in force, first match first'],
    ['permissions SERVER TOOL [--client NAME]', 'which rule decides a call of TOOL, and why'],
    ['permissions grants [--endpoint URL]', 'every "always allow" of the running gateway'],
    ['permissions revoke ID [--endpoint URL]', 'remove one'],
  ],
  flags: ['config', 'endpoint', 'client'],
  positional: true,
  run,
};

async function live(a: Args): Promise<{ permissions: Permissions; grants: Grant[] }> {
  const { at, auth, refusal } = gatewayV1(a);
  const res = await fetch(at('/v1/permissions'), { headers: auth });
  if (!res.ok) throw await refusal(res);
  return (await res.json()) as { permissions: Permissions; grants: Grant[] };
}

async function run(a: Args): Promise<void> {
  const [verb, second, ...extra] = a.positional;
  if (verb === 'grants' || verb === 'revoke') {
    if (verb === 'revoke' && !second) throw new UsageError('mcpx permissions revoke needs a grant ID');
    const unexpected = verb === 'revoke' ? extra[0] : second;
    if (unexpected !== undefined)
      throw new UsageError(`mcpx permissions: unexpected argument ${JSON.stringify(unexpected)}`);
    if (verb === 'grants') {
      const { grants } = await live(a);
      if (!grants.length) return void process.stdout.write('no grants ("always allow" answers) kept\n');
      for (const g of grants)
        process.stdout.write(
          `${printable(`${g.id}  ${g.kind} ${g.server}/${g.tool}  for ${g.client}`)}  since ${new Date(g.createdAt).toISOString()}\n`,
        );
      return;
    }
    const { at, auth, refusal } = gatewayV1(a);
    const res = await fetch(at(`/v1/permissions/grants/${encodeURIComponent(second!)}`), {
      method: 'DELETE',
      headers: auth,
    });
    if (!res.ok) throw await refusal(res);
    return void process.stdout.write(`revoked ${second}\n`);
  }
  if (extra.length) throw new UsageError(`mcpx permissions: unexpected argument ${JSON.stringify(extra[0])}`);
  if (verb !== undefined && second === undefined)
    throw new UsageError('mcpx permissions SERVER TOOL: name the tool too');
  let p: Permissions;
  let source: string;
  if (a.endpoint) {
    p = (await live(a)).permissions;
    source = a.endpoint.replace(/\/mcp\/.*$/, '/mcp');
  } else {
    const config = configOf(a);
    reportIssues(config);
    p = config.permissions ?? ALLOW_ALL;
    source = config.source;
  }
  if (verb === undefined) {
    process.stdout.write(`permissions of ${source}${p === ALLOW_ALL ? ' (no permissions block)' : ''}:\n`);
    for (const [i, r] of p.rules.entries())
      process.stdout.write(`  permissions.rules[${i}]  ${printable(describeRule(r))}\n`);
    process.stdout.write(`  default  ${p.default}\n  askTimeout  ${p.askTimeoutMs / 1000} s\n`);
    return;
  }
  // The tool's annotations are the server's: not known here, so a rule testing them is read with the
  // defaults of a tool that gives none (destructive, open-world, not read-only).
  const v = decide(p, { kind: 'tool', server: verb, target: second!, clientName: a.client, identity: '' });
  const i = /^permissions\.rules\[(\d+)\]$/.exec(v.rule)?.[1];
  const why =
    i === undefined
      ? 'no rule matches, so the default decides'
      : `the first rule that matches: ${describeRule(p.rules[Number(i)]!)}`;
  process.stdout.write(`${verb}/${second}${a.client ? ` for ${a.client}` : ''}: ${v.action} (${v.rule}): ${why}\n`);
  if (p.rules.some((r) => r.annotations))
    process.stdout.write('  (rules on annotations are read as for a tool that gives none: destructive, open-world)\n');
  if (v.action === 'ask')
    process.stdout.write('  an "always allow" kept for it lets it through: see mcpx permissions grants\n');
}
