// SEP-2243 x-mcp-header: which annotations are valid, and the headers they make.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testProvider } from '../fixtures/provider';
import { startTestServer } from '../harness/gateway';
import { assertServerFrame } from '../harness/schema';
import { headerParams, paramHeaders } from '../../src/wire/paramHeaders';

const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties });

test('valid annotations give their headers; values encoded; absent ones omitted', () => {
  const r = headerParams(
    obj({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      n: { type: 'integer', 'x-mcp-header': 'N' },
      deep: obj({ on: { type: 'boolean', 'x-mcp-header': 'On' } }),
    }),
  );
  assert.ok('params' in r);
  assert.deepEqual(paramHeaders(r.params, { region: 'us-west1', n: 42, deep: { on: false } }), {
    'Mcp-Param-Region': 'us-west1',
    'Mcp-Param-N': '42',
    'Mcp-Param-On': 'false',
  });
  assert.deepEqual(paramHeaders(r.params, { region: ' café ', n: null }), {
    'Mcp-Param-Region': `=?base64?${Buffer.from(' café ').toString('base64')}?=`,
  });
});

test('invalid annotations reject the tool, each with its reason', () => {
  const cases: Array<[unknown, RegExp]> = [
    [obj({ a: { type: 'string', 'x-mcp-header': '' } }), /empty/],
    [obj({ a: { type: 'string', 'x-mcp-header': 'Bad Name' } }), /not an HTTP field-name token/],
    [obj({ a: { type: 'number', 'x-mcp-header': 'A' } }), /not string, integer or boolean/],
    [obj({ a: { type: 'string', 'x-mcp-header': 'X' }, b: { type: 'string', 'x-mcp-header': 'x' } }), /used twice/],
    [obj({ a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'I' } } }), /not statically reachable/],
    [
      { type: 'object', oneOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] },
      /not statically reachable/,
    ],
  ];
  for (const [schema, why] of cases) {
    const r = headerParams(schema);
    assert.ok('reason' in r, String(why));
    assert.match(r.reason, why);
  }
});

describe("mcpx's own server: Mcp-Param-* headers checked against the tool's x-mcp-header arguments", () => {
  const ANNOTATED = {
    type: 'object',
    properties: { text: { type: 'string', 'x-mcp-header': 'Text' } },
    required: ['text'],
  };
  const post = async (url: string, text: string | undefined, header?: string) => {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'echo',
        arguments: text === undefined ? {} : { text },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    };
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'echo',
    };
    if (header !== undefined) headers['Mcp-Param-Text'] = header;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    const frame = (await res.json()) as Record<string, Record<string, unknown>>;
    assertServerFrame('2026-07-28', frame, 'tools/call');
    return { status: res.status, frame };
  };

  test('matching (plain and base64) is served; missing, different, badly encoded or unexpected is -32020 with 400', async () => {
    const base = testProvider();
    const l = await startTestServer(
      {},
      {
        provider: {
          ...base,
          resolveTool: async (name, ctx) => {
            const tool = await base.resolveTool!(name, ctx);
            return tool && name === 'echo' ? { ...tool, inputSchema: ANNOTATED } : tool;
          },
        },
      },
    );
    try {
      assert.equal((await post(l.url, 'hello', 'hello')).status, 200);
      const ok = await post(l.url, 'café', `=?base64?${Buffer.from('café').toString('base64')}?=`);
      assert.equal(ok.status, 200);
      assert.equal((ok.frame.result!.content as Array<{ text: string }>)[0]!.text, 'café');
      const refused: Array<[string | undefined, string | undefined, RegExp]> = [
        ['hello', undefined, /Mcp-Param-Text header is required/],
        ['hello', 'goodbye', /does not match argument text/],
        ['hello', '=?base64?aGVsbG8=!?=', /not a valid header value/],
        [undefined, 'hello', /present but argument text is not/],
      ];
      for (const [text, header, why] of refused) {
        const r = await post(l.url, text, header);
        assert.equal(r.status, 400, String(why));
        assert.equal(r.frame.error!.code, -32020);
        assert.match(String(r.frame.error!.message), why);
      }
    } finally {
      await l.close();
    }
  });
});
