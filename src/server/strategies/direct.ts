// The direct strategy: the handler runs within the request and its result is the answer.
import type { JsonObject } from '../../protocol/jsonrpc';
import type { ServerCall } from '../call';
import { handlerOf } from './work';

export async function direct(call: ServerCall, params: JsonObject): Promise<JsonObject> {
  try {
    return await handlerOf(call.method)(call, params);
  } finally {
    // An error is an answer too: nothing more goes on the request's channel.
    call.finish();
  }
}
