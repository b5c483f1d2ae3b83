// The 2026-07-28 background round (2026-07-28 basic/patterns/mrtr): for a method that may answer
// input_required, to a client whose questions travel that way. A fresh request starts its handler in a
// background call; a retry resumes the call its requestState names. A tools/call whose tool and client
// allow it has an eager window, past which it becomes a task (task.ts).
import type { JsonObject } from '../../protocol/jsonrpc';
import type { ServerCall } from '../call';
import type { BackgroundCall } from '../mrtr';
import { askInBackground } from '../questions';
import type { Rounds } from '../rounds';
import { promote, taskWindow } from './task';
import { runInBackground } from './work';

export async function background(call: ServerCall, params: JsonObject, rounds: Rounds): Promise<JsonObject> {
  const window = taskWindow(call);
  const binding = rounds.binding(call);
  const resumed = rounds.resume(call, binding);
  let bg: BackgroundCall;
  if (resumed) bg = resumed.bg;
  else {
    bg = rounds.begin(call);
    const b = bg;
    runInBackground(
      call,
      b,
      params,
      (method, p, signal, key) => askInBackground(b, { rev: call.rev, method, params: p, signal, key }),
      {
        windowed: window !== undefined,
      },
    );
  }
  const end = await rounds.round(call, bg, binding, { claimed: resumed?.claimed, window });
  if ('result' in end) return end.result;
  try {
    return promote(call, bg);
  } catch (e) {
    // Refused by the task store: the call ends.
    bg.abort.abort(e instanceof Error ? e : new Error(String(e)));
    throw e;
  }
}
