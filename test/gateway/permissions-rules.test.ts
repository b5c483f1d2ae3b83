// The permission rules as data (docs/gateway.md "Permissions"): each field of a rule, the first match
// winning over later ones, the default; the block validated with each bad rule's path; the canonical
// arguments and their digest an approval is bound to.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseConfig } from '../../src/config/file';
import { mergeSources } from '../../src/config/merge';
import { type Permissions, parsePermissions } from '../../src/config/permissions';
import { decide, describeRule, type Subject } from '../../src/gateway/permissions/rules';
import { canonicalDigest, canonicalJson } from '../../src/kit/canonical';

const ctx = { env: {}, workspaceFolder: '/w' };

function perms(raw: unknown): Permissions {
  const r = parsePermissions(raw);
  assert.deepEqual(r.issues, []);
  return r.permissions!;
}

const call = (o: Partial<Subject> = {}): Subject => ({
  kind: 'tool',
  server: 'github',
  target: 'create_issue',
  identity: 'client:a',
  ...o,
});

describe('a rule matches on each of its fields', () => {
  test('server and tool: globs, one or several', () => {
    const p = perms({ rules: [{ server: 'git*', tool: ['create_*', 'delete_*'], action: 'deny' }] });
    assert.equal(decide(p, call()).action, 'deny');
    assert.equal(decide(p, call({ target: 'delete_repo' })).action, 'deny');
    assert.deepEqual(decide(p, call({ target: 'list_issues' })), { action: 'allow', rule: 'default' });
    assert.equal(decide(p, call({ server: 'gitlab' })).action, 'deny');
    assert.equal(decide(p, call({ server: 'notes' })).action, 'allow');
  });

  test('kind: a tool call, a resource read or a prompt; `tool` matches the URI or prompt name', () => {
    const p = perms({ rules: [{ kind: ['resource', 'prompt'], tool: 'file:///secret*', action: 'deny' }] });
    assert.equal(decide(p, call({ kind: 'resource', target: 'file:///secret/a' })).action, 'deny');
    assert.equal(decide(p, call({ kind: 'tool', target: 'file:///secret/a' })).action, 'allow');
    assert.equal(decide(p, call({ kind: 'resource', target: 'file:///public' })).action, 'allow');
    const k = perms({ rules: [{ kind: 'prompt', action: 'ask' }] });
    assert.equal(decide(k, call({ kind: 'prompt', target: 'greet' })).action, 'ask');
    assert.equal(decide(k, call()).action, 'allow');
  });

  test('annotations: the hints as conditions, with the defaults of a tool that gives none', () => {
    const p = perms({ rules: [{ annotations: { destructiveHint: true }, action: 'ask' }] });
    assert.equal(decide(p, call({ annotations: { destructiveHint: true } })).action, 'ask');
    assert.equal(decide(p, call({ annotations: { destructiveHint: false } })).action, 'allow');
    // No annotations: destructive unless read-only (2025-11-25 server/tools "Tool Annotations").
    assert.equal(decide(p, call()).action, 'ask');
    assert.equal(decide(p, call({ annotations: { readOnlyHint: true } })).action, 'allow');
    // A read-only tool is not destructive, whatever else it says.
    assert.equal(decide(p, call({ annotations: { readOnlyHint: true, destructiveHint: true } })).action, 'allow');
    // Annotations are a tool's: no prompt or resource matches a rule on them.
    assert.equal(decide(p, call({ kind: 'prompt' })).action, 'allow');
    const ro = perms({ rules: [{ annotations: { readOnlyHint: true }, action: 'allow' }], default: 'deny' });
    assert.equal(decide(ro, call({ annotations: { readOnlyHint: true } })).action, 'allow');
    assert.equal(decide(ro, call()).action, 'deny');
    const open = perms({ rules: [{ annotations: { openWorldHint: false }, action: 'allow' }], default: 'ask' });
    assert.equal(decide(open, call({ annotations: { openWorldHint: false } })).action, 'allow');
    assert.equal(decide(open, call()).action, 'ask');
  });

  test('client: its declared name (a glob), or its identity', () => {
    const p = perms({
      rules: [
        { client: 'Claude*', action: 'deny' },
        { client: { identity: 'client:ci-*' }, action: 'ask' },
      ],
    });
    assert.equal(decide(p, call({ clientName: 'Claude Code' })).action, 'deny');
    assert.equal(decide(p, call({ clientName: 'Cursor' })).action, 'allow');
    // A client that declares no name matches no rule on names.
    assert.equal(decide(p, call()).action, 'allow');
    assert.deepEqual(decide(p, call({ identity: 'client:ci-7' })), { action: 'ask', rule: 'permissions.rules[1]' });
  });

  test("client: a token's subject, issuer and claims (a list claim by any of its values); none without a token", () => {
    const p = perms({
      rules: [
        { client: { claims: { groups: 'admin*' } }, action: 'allow' },
        { client: { subject: 'svc-*', issuer: 'https://idp.example' }, action: 'ask' },
        { action: 'deny' },
      ],
    });
    const principal = (subject: string, claims: Record<string, unknown> = {}, issuer = 'https://idp.example') => ({
      issuer,
      subject,
      scopes: [],
      claims,
    });
    const as = (p: ReturnType<typeof principal>) => call({ identity: `oauth:${p.issuer}#${p.subject}`, principal: p });
    assert.equal(decide(p, as(principal('alice', { groups: ['dev', 'admins'] }))).action, 'allow');
    // The same subject with another token, out of the group: its claims are read again, not a kept verdict.
    assert.equal(decide(p, as(principal('alice', { groups: ['dev'] }))).action, 'deny');
    assert.equal(decide(p, as(principal('alice', { groups: 'administrators' }))).action, 'allow');
    assert.equal(decide(p, as(principal('svc-ci'))).action, 'ask');
    assert.equal(decide(p, as(principal('svc-ci', {}, 'https://other.example'))).action, 'deny');
    // No token: a declared name or an identity named like a subject matches none of them.
    assert.equal(decide(p, call({ identity: 'client:svc-ci', clientName: 'admins' })).action, 'deny');
    assert.equal(
      describeRule(p.rules[0]!) + describeRule(p.rules[1]!),
      'allow when claims.groups=admin*ask when subject=svc-*, issuer=https://idp.example',
    );
    const bad = parsePermissions({ rules: [{ client: {}, action: 'deny' }] });
    assert.match(JSON.stringify(bad.issues), /name an identity, a subject, an issuer or claims/);
  });

  test('a verdict kept for one call is not given to another: each field a rule tests tells them apart', () => {
    const p = perms({
      rules: [
        { client: { identity: 'client:ci-*' }, action: 'deny' },
        { client: 'Claude*', action: 'ask' },
        { annotations: { readOnlyHint: true }, action: 'allow' },
      ],
      default: 'deny',
    });
    // The same call, asked twice each way, in an order where a shared key would answer wrongly.
    for (let i = 0; i < 2; i++) {
      assert.equal(decide(p, call({ identity: 'client:ci-1', clientName: 'Cursor' })).action, 'deny');
      assert.equal(decide(p, call({ identity: 'client:dev', clientName: 'Claude Code' })).action, 'ask');
      assert.equal(decide(p, call({ identity: 'client:dev', clientName: 'Cursor' })).action, 'deny');
      assert.equal(
        decide(p, call({ identity: 'client:dev', clientName: 'Cursor', annotations: { readOnlyHint: true } })).action,
        'allow',
      );
    }
    // Rules that test neither names nor identities: one verdict serves every client.
    const q = perms({ rules: [{ tool: 'create_*', action: 'ask' }] });
    assert.equal(decide(q, call({ identity: 'http:1' })).action, 'ask');
    assert.equal(decide(q, call({ identity: 'http:2', clientName: 'x' })).action, 'ask');
    assert.equal(decide(q, call({ identity: 'http:2', target: 'list' })).action, 'allow');
  });

  test('askVia is carried with the verdict', () => {
    const p = perms({ rules: [{ tool: 'x', action: 'ask', askVia: 'client' }] });
    assert.deepEqual(decide(p, call({ target: 'x' })), {
      action: 'ask',
      rule: 'permissions.rules[0]',
      askVia: 'client',
    });
  });
});

test('the first matching rule wins over every later one; none matching, the default', () => {
  const p = perms({
    default: 'ask',
    rules: [
      { server: 'github', tool: 'list_*', action: 'allow' },
      { server: 'github', action: 'deny' },
      { action: 'allow' },
    ],
  });
  assert.deepEqual(decide(p, call({ target: 'list_issues' })), { action: 'allow', rule: 'permissions.rules[0]' });
  assert.deepEqual(decide(p, call()), { action: 'deny', rule: 'permissions.rules[1]' });
  assert.deepEqual(decide(p, call({ server: 'notes' })), { action: 'allow', rule: 'permissions.rules[2]' });
  const reversed = perms({
    default: 'ask',
    rules: [
      { server: 'github', action: 'deny' },
      { server: 'github', tool: 'list_*', action: 'allow' },
    ],
  });
  assert.equal(decide(reversed, call({ target: 'list_issues' })).action, 'deny');
  assert.deepEqual(decide(perms({ default: 'ask' }), call()), { action: 'ask', rule: 'default' });
  assert.equal(describeRule(p.rules[0]!), 'allow when server=github, tool=list_*');
});

describe('the block is validated like a server entry', () => {
  test('each bad rule is named by its path; the rest of the file still loads', () => {
    const c = parseConfig(
      {
        servers: { a: { command: 'x' } },
        permissions: {
          default: 'maybe',
          askTimeout: 'soon',
          rules: [
            { action: 'allow' },
            { tool: 'x', action: 'block' },
            { action: 'allow', askVia: 'client' },
            { toll: 'x', action: 'deny' },
          ],
        },
      },
      'f.json',
      ctx,
    );
    const paths = c.issues.map((i) => i.path).sort();
    assert.deepEqual(paths, [
      'permissions.askTimeout',
      'permissions.default',
      'permissions.rules.1.action',
      'permissions.rules.2.askVia',
      'permissions.rules.3',
    ]);
    assert.equal(c.permissions, undefined);
    assert.equal(c.servers.length, 1);
  });

  test('defaults: allow, 120 s to answer, no rules; a duration is read as settings read one', () => {
    assert.deepEqual(perms({}), { default: 'allow', askTimeoutMs: 120_000, rules: [] });
    assert.equal(perms({ askTimeout: '90s' }).askTimeoutMs, 90_000);
    assert.equal(perms({ askTimeout: 1500 }).askTimeoutMs, 1500);
  });

  test("the editor's sources: the workspace file's block wins over the setting's, whole", () => {
    const m = mergeSources(
      [
        { label: 'settings (mcpx.permissions)', value: { permissions: { default: 'deny' } }, workspace: false },
        {
          label: '/w/.vscode/mcp.json',
          value: { servers: {}, permissions: { default: 'ask', rules: [{ action: 'allow', tool: 'a' }] } },
          workspace: true,
        },
      ],
      { ...ctx, trusted: true },
    );
    assert.equal(m.config.permissions?.default, 'ask');
    assert.equal(m.config.permissions?.rules.length, 1);
    const bad = mergeSources([{ label: 'L', value: { permissions: { rules: [{}] } }, workspace: false }], {
      ...ctx,
      trusted: true,
    });
    assert.deepEqual(bad.problems, ['L: permissions.rules.0.action: required']);
  });
});

test('canonical arguments: sorted keys at every depth, the same digest whatever the order written', () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } }),
    '{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}',
  );
  assert.equal(canonicalDigest({ x: 1, y: 'z' }), canonicalDigest({ y: 'z', x: 1 }));
  assert.notEqual(canonicalDigest({ x: 1 }), canonicalDigest({ x: 2 }));
  assert.match(canonicalDigest({}), /^[0-9a-f]{64}$/);
  // Keys sorted by code unit, not locale: "B" before "a".
  assert.equal(canonicalJson({ a: 1, B: 2 }), '{"B":2,"a":1}');
});
