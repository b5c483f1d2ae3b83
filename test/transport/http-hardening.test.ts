// Loopback is not a boundary (docs/security.md "The request head", "Bounds"): refusals that never echo a
// path (it may hold the endpoint secret), a strict request head (one Host naming this gateway and its
// port, a path as the target), bounds on how long a request may take to arrive and on how many
// connections are held, and legacy sessions that a flood of initialize cannot hold. Raw sockets
// (node:net) where fetch cannot say what an attacker sends.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { listen } from '../../src/app/app';
import { Settings } from '../../src/config/settings';
import { readHead } from '../../src/transport/head';
import { testProvider } from '../fixtures/provider';
import { startTestServer } from '../harness/gateway';
import type { Json } from '../harness/wire';
import { PING, exchange, request, MCP_HEADERS, errorOf } from './rawHttp';

describe('refusals never echo the path', () => {
  test('404, 401, 405, a wrong Host and a route under /v1: no body and no log line holds the secret', async () => {
    const logs: string[] = [];
    const gw = await listen({
      provider: testProvider(),
      settings: new Settings([{ source: 'flag', values: {} }]),
      port: 0,
      address: '127.0.0.1',
      log: (l) => logs.push(l),
    });
    try {
      const secret = gw.secret!;
      const host = `Host: 127.0.0.1:${gw.port}`;
      const auth = `Authorization: Bearer ${secret}`;
      const targets = [
        `//mcp/${secret}`,
        `/MCP/${secret}`,
        `/mcp/${secret}x`,
        `/mcp/${secret}/more`,
        `/${secret}`,
        `/v1/questions/${secret}`,
        `/v1/tasks/${secret}`,
        `/v1/tasks/${secret}/x`,
        `/v1/tasks/${secret}/cancel`,
        `/v1/${secret}`,
        `/health/${secret}`,
        `//[${secret}`,
        `/mcp/${secret}?q=${secret}`,
        `/x/../mcp/${secret}`,
      ];
      const statuses = new Set<number>();
      for (const target of targets) {
        for (const [method, lines] of [
          ['GET', [host]],
          ['GET', [host, auth]],
          ['POST', [host, auth, ...MCP_HEADERS]],
          ['PUT', [host, auth]],
          ['POST', [`Host: evil.example:${gw.port}`, ...MCP_HEADERS]],
        ] as const) {
          const r = await exchange(gw.port, request(method, target, [...lines], method === 'POST' ? PING : ''));
          assert.ok(r.status >= 400 || r.body.includes('"result"'), `${method} ${target}: ${r.status}`);
          if (r.status >= 400) statuses.add(r.status);
          assert.ok(
            !r.head.includes(secret) && !r.body.includes(secret),
            `${method} ${target} (${r.status}) echoed the secret: ${r.body}`,
          );
        }
      }
      // Every kind of refusal was seen, so each was checked.
      for (const s of [400, 401, 403, 404, 405]) assert.ok(statuses.has(s), `no ${s} among ${[...statuses]}`);
      // A session id is a credential too: the 404 for an ended one does not quote it.
      const gone = 'f0e1d2c3-b4a5-4697-8899-aabbccddeeff';
      const r = await exchange(
        gw.port,
        request(
          'POST',
          `/mcp/${secret}`,
          [host, ...MCP_HEADERS, `Mcp-Session-Id: ${gone}`, 'MCP-Protocol-Version: 2025-11-25'],
          PING,
        ),
      );
      assert.equal(r.status, 404);
      assert.match(String(errorOf(r).message), /Session not found.*initialize again/);
      assert.ok(!r.body.includes(gone));
      assert.ok(!logs.some((l) => l.includes(secret)), logs.join('\n'));
      assert.ok(!logs.some((l) => /^http: /.test(l)), `no request failed inside the gateway: ${logs.join('\n')}`);
    } finally {
      await gw.close();
    }
  });
});

describe('the request head', () => {
  test('a Host with userinfo, another port, no port or none; Host, Authorization or Content-Type twice; a target naming another host: refused with a JSON-RPC error', async () => {
    const gw = await startTestServer({ 'transport.allowedOrigins': ['http://localhost:9000'] });
    try {
      const port = gw.port;
      const target = `/mcp/${gw.secret}`;
      const post = (lines: string[], t = target, version = '1.1') =>
        exchange(port, request('POST', t, [...lines, ...MCP_HEADERS], PING, version));
      const refusals: Array<[string, string[], string, string, number, RegExp]> = [
        [
          'userinfo after the port',
          [`Host: localhost:${port}@evil.example`],
          target,
          '1.1',
          400,
          /Host does not parse/,
        ],
        ['a path in the Host', [`Host: localhost:${port}/x`], target, '1.1', 400, /Host does not parse/],
        ['another port', ['Host: 127.0.0.1:1'], target, '1.1', 403, /Host "127\.0\.0\.1:1" is not this gateway/],
        ['no port (80)', ['Host: localhost'], target, '1.1', 403, /not this gateway/],
        ['another host', [`Host: evil.example:${port}`], target, '1.1', 403, /not this gateway/],
        [
          'two Host headers',
          [`Host: 127.0.0.1:${port}`, `Host: evil.example:${port}`],
          target,
          '1.1',
          400,
          /more than one Host/,
        ],
        [
          'the same Host twice',
          [`Host: 127.0.0.1:${port}`, `Host: 127.0.0.1:${port}`],
          target,
          '1.1',
          400,
          /more than one Host/,
        ],
        [
          'two Authorization headers',
          [`Host: 127.0.0.1:${port}`, `Authorization: Bearer ${gw.secret}`, 'Authorization: Bearer x'],
          gw.bare.replace(/^http:\/\/[^/]+/, ''),
          '1.1',
          400,
          /more than one Authorization/,
        ],
        [
          'two Content-Type headers',
          [`Host: 127.0.0.1:${port}`, 'Content-Type: text/plain'],
          target,
          '1.1',
          400,
          /more than one Content-Type/,
        ],
        ['HTTP/1.0 without Host', [], target, '1.0', 400, /Host header is required/],
        ['HTTP/1.1 without Host', [], target, '1.1', 400, /Host header is required/],
        [
          'absolute-form naming another host',
          [`Host: 127.0.0.1:${port}`],
          `http://evil.example${target}`,
          '1.1',
          403,
          /authority "evil\.example" is not this gateway/,
        ],
        [
          'absolute-form with userinfo',
          [`Host: 127.0.0.1:${port}`],
          `http://127.0.0.1:${port}@evil.example${target}`,
          '1.1',
          400,
          /authority does not parse/,
        ],
        [
          'absolute-form of another scheme',
          [`Host: 127.0.0.1:${port}`],
          `https://127.0.0.1:${port}${target}`,
          '1.1',
          400,
          /must be a path/,
        ],
        ['dot segments', [`Host: 127.0.0.1:${port}`], `/v1/../mcp/${gw.secret}`, '1.1', 400, /normal form/],
      ];
      for (const [what, lines, t, version, status, message] of refusals) {
        const r = await post(lines, t, version);
        assert.equal(r.status, status, `${what}: ${r.body}`);
        const error = errorOf(r);
        assert.equal(error.code, -32600, what);
        assert.match(String(error.message), message, what);
        assert.ok(!r.body.includes(gw.secret!), what);
      }
      // What a client of this gateway sends is served: its names with its port, HTTP/1.0 with a Host, an
      // absolute-form target naming it (RFC 9112 §3.2.2), and an allowed origin's forwarded port.
      const served: Array<[string, string[], string, string]> = [
        ['127.0.0.1', [`Host: 127.0.0.1:${port}`], target, '1.1'],
        ['localhost', [`Host: LOCALHOST:${port}`], target, '1.1'],
        ['[::1]', [`Host: [::1]:${port}`], target, '1.1'],
        ['HTTP/1.0 with Host', [`Host: 127.0.0.1:${port}`], target, '1.0'],
        ['absolute-form naming the gateway', [`Host: 127.0.0.1:${port}`], `http://127.0.0.1:${port}${target}`, '1.1'],
        ['an allowed origin forwarded to this port', ['Host: localhost:9000'], target, '1.1'],
      ];
      for (const [what, lines, t, version] of served) {
        const r = await post(lines, t, version);
        assert.equal(r.status, 200, `${what}: ${r.body}`);
        assert.deepEqual((JSON.parse(r.body) as Json).result, {}, what);
      }
    } finally {
      await gw.close();
    }
  });

  test('bound to a wildcard address any well-formed name passes, with the port; a malformed one never does', () => {
    const p = { address: '0.0.0.0', port: 8123, allowedOrigins: [] };
    const head = (host: string[], url = '/mcp') => readHead({ url, rawHeaders: host.flatMap((h) => ['Host', h]) }, p);
    assert.deepEqual(head(['my-box.lan:8123']), { target: '/mcp' });
    assert.deepEqual(head(['192.168.1.5:8123']), { target: '/mcp' });
    assert.equal((head(['my-box.lan:8124']) as { status: number }).status, 403);
    assert.equal((head(['my-box.lan:8123@evil']) as { status: number }).status, 400);
    assert.equal((head(['a:8123', 'b:8123']) as { status: number }).status, 400);
    assert.equal((head([]) as { status: number }).status, 400);
    // Bound to 127.0.0.1, the bound address and loopback names pass, a LAN name does not.
    const lo = { address: '127.0.0.1', port: 8123, allowedOrigins: [] };
    assert.deepEqual(readHead({ url: '/mcp', rawHeaders: ['host', 'app.localhost:8123'] }, lo), { target: '/mcp' });
    assert.equal(
      (readHead({ url: '/mcp', rawHeaders: ['host', 'my-box.lan:8123'] }, lo) as { status: number }).status,
      403,
    );
  });
});
