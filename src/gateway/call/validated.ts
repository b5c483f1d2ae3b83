// The `validated` step: a tool's arguments against the input schema its server listed, before anything is
// decided (refused as invalid arguments: -32602, or an isError result from 2025-11-25, spelled at the
// edge); its structuredContent against its outputSchema after (a mismatch is relayed with a warning).
import { schemaMismatch } from '../../kit/schema';
import { invalidArguments } from '../../protocol/errors';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import { type Step, step } from './chain';

export const validated = (log: (line: string) => void): Step =>
  step('validated', async (call, next) => {
    const { listed } = call;
    // A held definition's arguments are not read: it is refused as it is.
    if (call.kind !== 'tool' || !listed || call.held) return next();
    const bad = schemaMismatch(listed.inputSchema, call.args);
    if (bad) throw invalidArguments(`Invalid arguments for ${call.server}/${call.target}: ${bad}`);
    const result = (await next()) as JsonObject;
    if (!('outputSchema' in listed) || !isObject(result) || !('structuredContent' in result) || result.isError)
      return result;
    const wrong = schemaMismatch(listed.outputSchema, result.structuredContent);
    if (!wrong) return result;
    const warning = `structuredContent of ${call.server}/${call.target} does not match its outputSchema: ${wrong}`;
    log(`[${call.server}] ${warning}`);
    return { ...result, _meta: { ...(isObject(result._meta) ? result._meta : {}), 'dev.mcpx/warnings': [warning] } };
  });
