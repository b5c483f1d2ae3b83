// mcpx: Manage Permissions — the "always allow" grants of this workspace, revoked as chosen, and the rules
// in force (read-only, each with where it came from: the person's source, or the editor's palette rule;
// docs/gateway.md "Permissions"). Resolves with how many grants were revoked.
import type { GatewayFacade } from '../../gateway/facade';
import { describeRule } from '../../gateway/permissions/rules';
import { EDITOR_RULE } from '../permissions/editorRule';
import { type Deps, gatewayCommand } from './command';

const REVOKE = 'Revoke always-allow grants…';
const RULES = 'Show the rules in force';

export const managePermissions = gatewayCommand(async (d, g) => {
  const grants = g.grants();
  const rules = g.permissions().rules;
  const what = await d.window.showQuickPick(
    [
      { label: REVOKE, description: `${grants.length} in this workspace` },
      { label: RULES, description: `${rules.length} rule${rules.length === 1 ? '' : 's'}, read-only` },
    ],
    { title: 'mcpx: Manage Permissions' },
  );
  if (what?.label === RULES) return void (await showRules(d, g));
  if (what?.label !== REVOKE) return 0;
  if (!grants.length) {
    void d.window.showInformationMessage('mcpx: nothing is always allowed in this workspace.');
    return 0;
  }
  const chosen = await d.window.showQuickPick(
    grants.map((grant) => ({
      label: `${grant.kind} ${grant.server}/${grant.tool}`,
      description: `for ${grant.client}`,
      detail: `always allowed since ${new Date(grant.createdAt).toISOString()}`,
      grant,
    })),
    { title: 'mcpx: the grants to revoke (they ask again)', canPickMany: true },
  );
  let n = 0;
  for (const c of chosen ?? []) if (await g.revokeGrant(c.grant.id)) n++;
  if (n) void d.window.showInformationMessage(`mcpx: revoked ${n} grant${n === 1 ? '' : 's'}; those calls ask again.`);
  return n;
});

/** The rules in order, as the gate reads them (first match wins), each with where it came from. */
function showRules(d: Deps, g: GatewayFacade): Promise<void> {
  const p = g.permissions();
  const from = d.host.permissionsFrom ?? 'no source has a permissions block';
  return d.results.showJson('mcpx permissions', {
    default: p.default,
    askTimeoutMs: p.askTimeoutMs,
    rules: p.rules.map((r, i) => ({
      rule: `permissions.rules[${i}]`,
      says: describeRule(r),
      from:
        r === EDITOR_RULE ? 'built in: the palette asks before it calls a tool (docs/gateway.md "Permissions")' : from,
    })),
    grants: g.grants(),
  });
}
