// mcpx_exec: a script that calls tools, run in the sandboxed child (src/gateway/exec/, docs/exec.md).
import { type GatewayTool, obj } from './tool';

export const mcpxExec: GatewayTool = {
  definition: {
    name: 'mcpx_exec',
    title: 'Run a script that calls tools',
    description:
      'Run `script`, the body of an async JavaScript function, in a sandbox (docs/exec.md). In scope is `mcpx`: `mcpx.call(server, tool, args)`, `mcpx.servers.<server>.<tool>(args)` (names as identifiers: other characters become `_`; declarations from mcpx_describe), `mcpx.read(uri)`, `mcpx.prompt(name, args)`; and `console`. Nothing else: no require, import, process, fetch or timers. What it returns (JSON) and what it logs are the result; a throw is an error result with its stack. `timeoutSec` replaces exec.timeout (120 s) for this run.',
    inputSchema: obj(
      {
        script: {
          type: 'string',
          description:
            "The body of an async function, e.g. `const a = await mcpx.call('notes', 'search', {q: 'x'}); return a.content.length;`",
        },
        timeoutSec: {
          type: 'number',
          exclusiveMinimum: 0,
          description: 'The timeout of this run, in seconds (default exec.timeout).',
        },
      },
      ['script'],
    ),
    outputSchema: obj({ result: {}, logs: { type: 'array', items: { type: 'string' } } }, ['result', 'logs']),
    annotations: { openWorldHint: true },
    // A run may be long: it may run as a task, like mcpx_call (2025-11-25 server/tools "Tool-Level
    // Negotiation").
    execution: { taskSupport: 'optional' },
  },
  // Output past results.artifactOver: `result` (any value) names the artifact; the logs are in it too.
  artifact: ({ uri, bytes, preview }) => ({ result: { artifact: uri, bytes, preview }, logs: [] }),
  run: (args, ctx, d) => d.exec.run(args, ctx, d.execStarted),
};
