// The HTTP API for callers that do not speak MCP (docs/gateway.md "The HTTP API") on a real gateway's
// listener over a real fixture upstream (stdio): GET /openapi.json behind the endpoint secret, valid
// OpenAPI 3.1 by @seriousme/openapi-schema-validator, two tools called through a generic client that reads
// the document at run time (openapi-client-axios); POST /v1/call/{server}/{tool} answered as JSON and as
// application/x-ndjson (progress and log lines, then the result); the refusals (bad JSON, a schema-invalid
// body, an unknown tool, a body past transport.maxBodyBytes); and the call gate: a `deny` rule refuses the
// call before the upstream hears it, and the activity log records each call as `http-api`.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OpenAPIClientAxios } from 'openapi-client-axios';
import { openApiDocument } from '../../src/app/openapi';
import { type Json, logs, base, auth, upstreamCalls, post, validate } from './httpApiKit';

describe('the OpenAPI document', () => {
  test('is served only with the endpoint secret', async () => {
    const res = await fetch(`${base()}/openapi.json`);
    assert.equal(res.status, 401);
    assert.match(await res.text(), /endpoint secret/);
  });

  test('is valid OpenAPI 3.1: one operation per tool, the input schema as its body, the secret as bearer', async () => {
    const res = await fetch(`${base()}/openapi.json`, { headers: auth() });
    assert.equal(res.status, 200);
    const doc = (await res.json()) as Json & { paths: Record<string, Json>; components: Json };
    // The validator resolves references in place: it reads a copy.
    const v = await validate(structuredClone(doc));
    assert.equal(v.valid, true, JSON.stringify(v.errors));
    assert.doesNotThrow(() => v.resolved());
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.security, [{ endpointSecret: [] }]);
    const scheme = (doc.components.securitySchemes as Record<string, Json>).endpointSecret!;
    assert.equal(scheme.type, 'http');
    assert.equal(scheme.scheme, 'bearer');
    const echo = doc.paths['/v1/call/fx/echo']!.post as Json;
    assert.equal(echo.operationId, 'fx__echo');
    const schemas = doc.components.schemas as Record<string, Json>;
    const inRef = (((echo.requestBody as Json).content as Json)['application/json'] as Json).schema as Json;
    assert.deepEqual(schemas[String(inRef.$ref).split('/').pop()!]!.required, ['text']);
    // add has an output schema: its result's structuredContent follows it.
    const add = doc.paths['/v1/call/fx/add']!.post as Json;
    const outRef = ((((add.responses as Json)['200'] as Json).content as Json)['application/json'] as Json)
      .schema as Json;
    const result = schemas[String(outRef.$ref).split('/').pop()!]!;
    const sc = (result.properties as Json).structuredContent as Json;
    assert.ok(schemas[String(sc.$ref).split('/').pop()!]!.properties, 'the output schema is a component');
    assert.ok(doc.paths['/v1/tools']);
    // The HTTP API's completion is in the document beside the calls.
    const complete = doc.paths['/v1/complete']!.post as Json;
    assert.equal(complete.operationId, 'complete');
    assert.deepEqual(schemas.CompleteParams!.required, ['ref', 'argument']);
    assert.deepEqual(Object.keys(complete.responses as Json).sort(), ['200', '400', '401', '415', '429', '502']);
  });

  test("a tool's own references are rebased into the document, and resolve", async () => {
    const doc = openApiDocument(
      [
        {
          server: 's',
          tool: {
            name: 'deep',
            inputSchema: {
              type: 'object',
              $defs: { point: { type: 'object', properties: { x: { type: 'number' } } } },
              properties: { at: { $ref: '#/$defs/point' }, again: { $ref: '#' } },
            },
          },
        },
      ],
      { version: '0', base: 'http://127.0.0.1:1' },
    );
    const v = await validate(structuredClone(doc));
    assert.equal(v.valid, true, JSON.stringify(v.errors));
    const schema = ((doc.components as Json).schemas as Record<string, Json>)['s__deep.input']!;
    assert.deepEqual(schema.properties, {
      at: { $ref: '#/components/schemas/s__deep.input/$defs/point' },
      again: { $ref: '#/components/schemas/s__deep.input' },
    });
    const resolved = v.resolved() as { components: { schemas: Record<string, Json> } };
    const at = (resolved.components.schemas['s__deep.input']!.properties as Record<string, Json>).at!;
    assert.deepEqual(at.properties, { x: { type: 'number' } });
  });
});

describe('calls', () => {
  test('two tools through a generic OpenAPI client that reads the document at run time', async () => {
    const doc = await (await fetch(`${base()}/openapi.json`, { headers: auth() })).json();
    const api = new OpenAPIClientAxios({
      definition: doc as never,
      axiosConfigDefaults: { headers: auth() },
    });
    const client = (await api.init()) as unknown as Record<
      string,
      (p: unknown, body: unknown) => Promise<{ data: Json }>
    >;
    const echoed = await client.fx__echo!(null, { text: 'through openapi' });
    assert.deepEqual(echoed.data.content, [{ type: 'text', text: 'through openapi' }]);
    const added = await client.fx__add!(null, { a: 2, b: 40 });
    assert.deepEqual(added.data.structuredContent, { sum: 42 });
  });

  test('a 2026-07-28 upstream over Streamable HTTP: a call, and its progress streamed', async () => {
    const added = await post('/v1/call/web/add', JSON.stringify({ a: 1, b: 2 }));
    assert.equal(added.status, 200);
    assert.deepEqual(((await added.json()) as Json).structuredContent, { sum: 3 });
    const res = await post('/v1/call/web/slow', JSON.stringify({ ms: 40, steps: 2 }), {
      Accept: 'application/x-ndjson',
    });
    const lines = (await res.text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Json);
    assert.deepEqual(
      lines.filter((l) => l.type === 'progress').map((l) => l.progress),
      [1, 2],
    );
    assert.equal(lines.at(-1)?.type, 'result');
  });

  test('GET /v1/tools lists the tools with their paths', async () => {
    const res = await fetch(`${base()}/v1/tools`, { headers: auth() });
    assert.equal(res.status, 200);
    const { tools } = (await res.json()) as { tools: Json[] };
    const echo = tools.find((t) => t.name === 'echo')!;
    assert.equal(echo.server, 'fx');
    assert.equal(echo.path, '/v1/call/fx/echo');
    assert.ok(echo.inputSchema);
  });

  test('Accept: application/x-ndjson streams progress and log lines, then the result', async () => {
    const res = await post('/v1/call/fx/slow', JSON.stringify({ ms: 60, steps: 3 }), {
      Accept: 'application/x-ndjson',
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
    const lines = (await res.text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Json);
    const last = lines.pop()!;
    assert.equal(last.type, 'result');
    assert.deepEqual((last.result as Json).content, [{ type: 'text', text: 'slept 60ms' }]);
    const progress = lines.filter((l) => l.type === 'progress');
    assert.equal(progress.at(-1)?.progress, 3);
    assert.equal(progress.at(-1)?.total, 3);
    assert.ok(lines.some((l) => l.type === 'log' && l.level === 'info' && /step 1 of 3/.test(String(l.data))));
  });

  test('a logLevel above the messages keeps the log lines out', async () => {
    const res = await post('/v1/call/fx/slow?logLevel=error', JSON.stringify({ ms: 10, steps: 1 }), {
      Accept: 'application/x-ndjson',
    });
    const lines = (await res.text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Json);
    assert.equal(lines.filter((l) => l.type === 'log').length, 0);
    assert.equal(lines.at(-1)?.type, 'result');
  });
});

describe('refusals', () => {
  test('a body that is not JSON: 400 saying so', async () => {
    const res = await post('/v1/call/fx/echo', '{"text":');
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as Json).error as string, /^the body is not JSON/);
  });

  test('a body the input schema refuses: 400 naming the tool and the mismatch, and nothing sent upstream', async () => {
    const before = upstreamCalls('echo').length;
    const res = await post('/v1/call/fx/echo', JSON.stringify({ text: 7 }));
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as Json).error as string, /^Invalid arguments for fx\/echo: .*text/);
    assert.equal(upstreamCalls('echo').length, before);
  });

  test('an array body: 400', async () => {
    const res = await post('/v1/call/fx/echo', '[]');
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as Json).error as string, /JSON object/);
  });

  test('an unknown tool or server: 404, quoting only a configured name', async () => {
    const tool = await post('/v1/call/fx/nope', '{}');
    assert.equal(tool.status, 404);
    assert.equal(
      ((await tool.json()) as Json).error,
      'No such tool of server "fx" is offered here (GET /v1/tools lists them)',
    );
    const server = await post('/v1/call/nobody/echo', '{}');
    assert.equal(server.status, 404);
    assert.equal(
      ((await server.json()) as Json).error,
      'No such server is offered here (GET /v1/tools lists the tools of those that are)',
    );
  });

  test('no authenticated 404 and no log line quotes a path segment that names nothing configured', async () => {
    // What a mistyped URL may hold: the endpoint secret in the wrong place.
    const SEGMENT = 'Zq9-not-a-server-but-a-secret';
    const before = logs.length;
    const bodies: string[] = [];
    for (const [method, path] of [
      ['POST', `/v1/call/${SEGMENT}/echo`],
      ['POST', `/v1/call/fx/${SEGMENT}`],
      ['POST', `/v1/servers/${SEGMENT}/restart`],
      ['GET', `/v1/pins/${SEGMENT}`],
      ['GET', `/v1/pins/${SEGMENT}/diff`],
      ['GET', `/v1/profiles/${SEGMENT.toLowerCase().slice(0, 30)}/v1/tools`],
    ] as const) {
      const r = await fetch(`${base()}${path}`, {
        method,
        headers: { ...auth(), 'Content-Type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      assert.equal(r.status, 404, path);
      bodies.push(await r.text());
    }
    // A watch of a URI naming no configured server: its stream says why, and nothing else hears the name.
    const watch = await fetch(`${base()}/v1/events?uri=${encodeURIComponent(`mcpx://${SEGMENT}/x`)}`, {
      headers: auth(),
    });
    const said = await watch.text();
    assert.match(said, /"subscribed":false/);
    assert.match(said, /names no configured server/);
    for (const b of bodies) assert.ok(!b.includes(SEGMENT) && !b.includes(SEGMENT.toLowerCase().slice(0, 30)), b);
    const logged = logs.slice(before).join('\n');
    assert.match(logged, /no updates will be delivered for a watch/);
    assert.ok(!logged.includes(SEGMENT), logged);
  });

  test('a POST whose body is not typed JSON: 415 on every route that reads one, as on /mcp; the upstream never hears it', async () => {
    const before = upstreamCalls('echo').length;
    const routes: Array<[string, string | undefined]> = [
      ['/v1/call/fx/echo', '{"text":"blind"}'],
      ['/v1/call/fx/echo', undefined],
      [`/v1/questions/${crypto.randomUUID()}`, '{"action":"accept"}'],
      ['/v1/pins/fx/accept', '{}'],
      [`/v1/tasks/${crypto.randomUUID()}/cancel`, '{"reason":"blind"}'],
    ];
    for (const [path, body] of routes) {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
        const r = await fetch(`${base()}${path}`, {
          method: 'POST',
          headers: { ...auth(), ...(type ? { 'Content-Type': type } : {}), 'Mcpx-Identity': 'blind' },
          ...(body !== undefined ? { body } : {}),
        });
        // A route whose body may be left out takes an empty request without a type.
        if (body === undefined && type === undefined && !path.startsWith('/v1/call')) continue;
        assert.equal(r.status, 415, `${path} ${type ?? '(none)'}: ${await r.text()}`);
      }
    }
    assert.equal(upstreamCalls('echo').length, before);
  });

  test('a body past transport.maxBodyBytes: 413', async () => {
    const res = await post('/v1/call/fx/echo', JSON.stringify({ text: 'x'.repeat(70 * 1024) }));
    assert.equal(res.status, 413);
    assert.match(((await res.json()) as Json).error as string, /transport\.maxBodyBytes/);
  });

  test('without the endpoint secret: 401, and the upstream is not called', async () => {
    const before = upstreamCalls('echo').length;
    for (const [path, init] of [
      ['/v1/call/fx/echo', { method: 'POST', body: JSON.stringify({ text: 'no secret' }) }],
      ['/v1/tools', {}],
    ] as const) {
      const res = await fetch(`${base()}${path}`, { ...init, headers: { 'Content-Type': 'application/json' } });
      assert.equal(res.status, 401, path);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="mcpx"');
    }
    const wrong = await post('/v1/call/fx/echo', JSON.stringify({ text: 'wrong' }), { Authorization: 'Bearer nope' });
    assert.equal(wrong.status, 401);
    assert.equal(upstreamCalls('echo').length, before);
  });

  test('GET on a call: 405', async () => {
    const res = await fetch(`${base()}/v1/call/fx/echo`, { headers: auth() });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
  });
});
