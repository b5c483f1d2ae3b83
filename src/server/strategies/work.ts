// The handlers by method, and the work of a call that outlives its request: a handler run inside a
// background call, with the request's call as its context.
import type { ClientRequest } from '../../protocol/methods';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { ServerCall } from '../call';
import { HANDLERS, type Handlers } from '../handlers';
import type { BackgroundCall } from '../mrtr';
import type { CallContext } from '../provider';
import { TASK_HANDLERS } from '../taskHandlers';

/** Every request's handler: the core ones and the tasks/* of both eras, one for each client request. */
const ALL: Handlers<ClientRequest> = { ...HANDLERS, ...TASK_HANDLERS };

export const hasHandler = (method: string): boolean => Object.hasOwn(ALL, method);

/** The handler of `method`, its params parsed already by the method's descriptor. */
export const handlerOf = (method: string) =>
  (ALL as unknown as Record<string, (call: ServerCall, params: JsonObject) => Promise<JsonObject>>)[method]!;

/** Runs the handler in `bg`: the work's abort is the background call's, questions go through `ask`, and
 *  its progress and log messages ride the request's stream only until the call first settles. The call's
 *  identity ends with the work, not with the request. */
export function runInBackground(
  call: ServerCall,
  bg: BackgroundCall,
  params: JsonObject,
  ask: NonNullable<CallContext['ask']>,
  o: { windowed?: boolean; task?: boolean } = {},
): void {
  call.abort = bg.abort;
  call.background = bg;
  call.detached = true;
  call.ask = ask;
  call.channel = undefined;
  // A call that may become a task asks an upstream for one too; one that is a task already is one.
  call.wantsTask = o.windowed === true || o.task === true;
  if (o.windowed) call.becomeTask = () => bg.becomeTask();
  const work = handlerOf(call.method)(call, params);
  bg.run(work);
  void bg.settle().then(() => call.finish());
  const end = () => call.endIdentity();
  void work.then(end, end);
}
