// Signing in through the calling client (docs/gateway.md "Signing in through the calling client"): a
// headless gateway (nobody to sign in) in front of the OAuth fixture's protected server, and clients that
// declared URL-mode elicitation. The test client does what a person's browser would with the URL it is
// given: the consent page, Approve, back to mcpx's loopback redirect.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpPeer } from '../fixtures/upstream/client';
import { TestIssuer } from '../harness/issuer';
import { type OAuthFixture, consent, startOAuthFixture } from '../harness/oauth';
import { type Revision, assertServerFrame } from '../harness/schema';
import { type TestGateway, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json, parseSse } from '../harness/wire';
import { until } from '../harness/wait';

let fx: OAuthFixture;
before(async () => {
  fx = await startOAuthFixture({ stepUpTool: 'admin_tool' });
});
after(async () => {
  killAll();
  await fx?.stop();
});

/** What a browser does with the authorization URL: the consent page, Approve, back to the redirect. */
async function followInBrowser(url: string): Promise<void> {
  const back = await consent(await fetch(url, { redirect: 'manual' }));
  const landing = await fetch(back);
  assert.match(await landing.text(), /Signed in/);
}

const URL_CAPS = { elicitation: { form: {}, url: {} } };
const echo = (text: string) => ({ name: 'mcpx_call', arguments: { server: 'fx', tool: 'echo', arguments: { text } } });
const textOf = (r: unknown) => JSON.stringify(r);

/** A headless gateway (no SignInPort: the daemon's) with a fresh state directory: never signed in. */
const headless = (): Promise<TestGateway> => gatewayFor({ fx: { type: 'http', url: fx.mcp } });

describe('a client that declared URL elicitation gets the sign-in URL', () => {
  test('2025-11-25: an elicitation/create of mode url on the call; accepted and followed, the call goes on and elicitation/complete names it', async () => {
    const gw = await headless();
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      const asked: Json[] = [];
      peer.answer = (req) => {
        asked.push(req);
        const p = req.params as Json;
        // The person consents; the browser goes to the page afterwards, as a client opens it.
        setTimeout(() => void followInBrowser(String(p.url)), 10);
        return { action: 'accept' };
      };
      await peer.initialize(URL_CAPS);
      const r = await peer.request('tools/call', echo('through the client'));
      assert.match(textOf(r.result), /through the client/, textOf(r));
      assert.equal(asked.length, 1);
      const q = asked[0]!.params as Json;
      assert.equal(q.mode, 'url');
      assert.match(String(q.message), /"fx" needs you to sign in at 127\.0\.0\.1:\d+/);
      assert.equal(new URL(String(q.url)).origin, fx.issuer);
      const complete = peer.frames.filter((f) => f.method === 'notifications/elicitation/complete');
      assert.deepEqual(
        complete.map((f) => (f.params as Json).elicitationId),
        [q.elicitationId],
      );
      assert.deepEqual(peer.problems, []);
      // Signed in for everyone: a client without URL elicitation is served at once.
      const other = new HttpClient(gw.url, '2025-11-25');
      await other.initialize();
      assert.match(textOf((await other.request('tools/call', echo('after'))).result), /after/);
      assert.equal(gw.g.signInState('fx'), 'signed-in');
    } finally {
      await gw.close();
    }
  });

  test('on every path that reaches the upstream: pass-through tools/call, a script of mcpx_exec', async () => {
    const paths: Array<[string, Record<string, unknown>, (p: HttpPeer) => Promise<Json>]> = [
      [
        'pass-through',
        { 'mcp.passthrough': ['fx'] },
        (p) => p.request('tools/call', { name: 'echo', arguments: { text: 'on the path' } }) as Promise<Json>,
      ],
      [
        'mcpx_exec',
        {},
        (p) =>
          p.request('tools/call', {
            name: 'mcpx_exec',
            arguments: { script: "return (await mcpx.call('fx', 'echo', { text: 'on the path' })).content[0].text;" },
          }) as Promise<Json>,
      ],
    ];
    for (const [path, settings, run] of paths) {
      const gw = await gatewayFor({ fx: { type: 'http', url: fx.mcp } }, settings);
      try {
        const peer = new HttpPeer('2025-11-25', gw.url);
        peer.answer = (req) => {
          setTimeout(() => void followInBrowser(String((req.params as Json).url)), 10);
          return { action: 'accept' };
        };
        await peer.initialize(URL_CAPS);
        const r = await run(peer);
        assert.match(textOf(r.result), /on the path/, `${path}: ${textOf(r)}`);
        assert.equal(peer.frames.filter((f) => f.method === 'elicitation/create').length, 1, path);
        assert.equal(peer.frames.filter((f) => f.method === 'notifications/elicitation/complete').length, 1, path);
        assert.deepEqual(peer.problems, [], path);
      } finally {
        await gw.close();
      }
    }
  });

  test('a step-up (insufficient_scope) goes through the client too, for what was granted plus what is asked', async () => {
    const gw = await headless();
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      const scopes: string[] = [];
      peer.answer = (req) => {
        const p = req.params as Json;
        scopes.push(String(/\(access: ([^)]*)\)/.exec(String(p.message))?.[1]));
        setTimeout(() => void followInBrowser(String(p.url)), 10);
        return { action: 'accept' };
      };
      await peer.initialize(URL_CAPS);
      assert.match(textOf((await peer.request('tools/call', echo('first'))).result), /first/);
      const admin = await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'fx', tool: 'admin_tool', arguments: { text: 'wider' } },
      });
      assert.match(textOf(admin.result), /wider/, textOf(admin));
      assert.deepEqual(scopes, ['mcp:read', 'mcp:read mcp:admin']);
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });

  test('2025-11-25: a declined sign-in ends the call naming it; nothing is signed in', async () => {
    const gw = await headless();
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      peer.answer = () => ({ action: 'decline' });
      await peer.initialize(URL_CAPS);
      const r = await peer.request('tools/call', echo('never'));
      assert.match(textOf(r), /the sign-in to fx was declined/);
      assert.equal(peer.frames.filter((f) => f.method === 'elicitation/create').length, 1);
      assert.equal(peer.frames.filter((f) => f.method === 'notifications/elicitation/complete').length, 0);
      assert.equal(gw.g.signInState('fx'), 'needs-sign-in');
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });

  test('2026-07-28: input_required with the url question; the retry that accepts waits for the redirect and gets the result', async () => {
    const gw = await headless();
    try {
      const peer = new HttpPeer('2026-07-28', gw.url);
      const first = (await peer.request('tools/call', echo('modern'), {}, URL_CAPS)) as Json;
      const r1 = first.result as Json;
      assert.equal(r1.resultType, 'input_required', textOf(first));
      const [[key, q]] = Object.entries(r1.inputRequests as Record<string, Json>) as [[string, Json]];
      assert.equal(q.method, 'elicitation/create');
      const p = q.params as Json;
      assert.equal(p.mode, 'url');
      assert.equal('elicitationId' in p, false, 'no elicitationId in 2026-07-28');
      setTimeout(() => void followInBrowser(String(p.url)), 50);
      const second = (await peer.request(
        'tools/call',
        { ...echo('modern'), inputResponses: { [key]: { action: 'accept' } }, requestState: r1.requestState },
        {},
        URL_CAPS,
      )) as Json;
      assert.match(textOf(second.result), /modern/, textOf(second));
      assert.equal((second.result as Json).resultType, 'complete');
      assert.equal(
        peer.frames.some((f) => f.method === 'notifications/elicitation/complete'),
        false,
        '2026-07-28 has no such notification',
      );
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });

  test('2025-11-25, a request that cannot carry a question: -32042 with the URL; elicitation/complete on the GET stream, then the retry succeeds', async () => {
    const gw = await headless();
    const ctl = new AbortController();
    try {
      const c = new HttpClient(gw.url, '2025-11-25', { capabilities: URL_CAPS });
      await c.initialize();
      const { 'Content-Type': _, ...get } = c.headers();
      const stream = await fetch(gw.url, { headers: { ...get, Accept: 'text/event-stream' }, signal: ctl.signal });
      let pushed = '';
      const reading = (async () => {
        const dec = new TextDecoder();
        for await (const chunk of stream.body!) pushed += dec.decode(chunk as Uint8Array);
      })().catch(() => undefined);
      // Accepting JSON only, the response cannot become a stream that carries a question.
      const refused = await c.request('tools/call', echo('retry me'), { headers: { Accept: 'application/json' } });
      assert.equal(refused.error?.code, -32042, textOf(refused.response));
      const [e] = (refused.error!.data as { elicitations: Json[] }).elicitations;
      assert.equal(e!.mode, 'url');
      assert.match(String(e!.elicitationId), /^mcpx-signin-/);
      await followInBrowser(String(e!.url));
      const completes = () =>
        (parseSse(pushed) as Json[]).filter((f) => f.method === 'notifications/elicitation/complete');
      await until(() => completes().length > 0, { what: 'notifications/elicitation/complete', timeout: 5000 });
      for (const f of parseSse(pushed)) assertServerFrame('2025-11-25', f);
      assert.deepEqual(
        completes().map((f) => (f.params as Json).elicitationId),
        [e!.elicitationId],
      );
      const retried = await c.request('tools/call', echo('retry me'), { headers: { Accept: 'application/json' } });
      assert.match(textOf(retried.result), /retry me/);
      ctl.abort();
      await reading;
    } finally {
      ctl.abort();
      await gw.close();
    }
  });

  test('a client without URL elicitation keeps the message naming mcpx auth login: form only, 2025-06-18 (no URL mode), 2026-07-28 form only', async () => {
    const gw = await headless();
    try {
      const cases: Array<[Revision, Json]> = [
        ['2025-11-25', { elicitation: { form: {} } }],
        ['2025-06-18', { elicitation: {} }],
        ['2026-07-28', { elicitation: { form: {} } }],
      ];
      for (const [rev, capabilities] of cases) {
        const c = new HttpClient(gw.url, rev, { capabilities });
        if (rev !== '2026-07-28') await c.initialize();
        const r = await c.request('tools/call', echo('no'));
        assert.match(textOf(r.result ?? r.error), /needs a sign-in.*mcpx auth login fx/, rev);
        assert.equal(
          c.seen.some((f) => f.method === 'elicitation/create' || (f.result as Json | undefined)?.inputRequests),
          false,
          rev,
        );
      }
      assert.equal(gw.g.signInState('fx'), 'needs-sign-in');
    } finally {
      await gw.close();
    }
  });
});

describe('a token\'s caller (docs/security.md "Two ways in")', () => {
  test('is never handed the sign-in URL: its call fails naming mcpx auth login, and nothing is signed in', async () => {
    const issuer = await new TestIssuer().start();
    const gw = await gatewayFor({ fx: { type: 'http', url: fx.mcp } }, { 'auth.issuer': issuer.url });
    try {
      const peer = new HttpPeer('2025-11-25', gw.bare);
      peer.extraHeaders = { Authorization: `Bearer ${await issuer.mint({ sub: 'remote', aud: gw.bare })}` };
      const asked: Json[] = [];
      peer.answer = (req) => {
        asked.push(req);
        return { action: 'decline' };
      };
      await peer.initialize(URL_CAPS);
      const r = await peer.request('tools/call', echo('as a subject'));
      assert.deepEqual(asked, [], 'no question, no URL');
      assert.match(textOf(r), /mcpx auth login/);
      assert.notEqual(gw.g.signInState('fx'), 'signed-in');
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
      await issuer.close();
    }
  });
});
