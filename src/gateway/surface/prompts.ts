// The prompts one endpoint's client sees (docs/gateway.md "The surface"): each offered server's prompts,
// a pass-through server's under their own names and the others' as <server>_<prompt>. The index maps the
// name a client sees to the server and the prompt's own name: the one lookup of a prompts/get and of a
// completion of a prompt's argument (call/offered.ts).
import { CODES, ProtocolError } from '../../protocol/errors';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallContext } from '../../server/provider';
import { safeName } from '../catalogue/names';
import type { Lists } from './lists';

/** One prompt as a client sees it: its server, its own name there, and its definition as listed. */
export interface OfferedPrompt {
  readonly server: string;
  readonly name: string;
  readonly prompt: JsonObject;
}

export class Prompts {
  constructor(private readonly d: { lists: Lists; passthrough: readonly string[] }) {}

  /** Name shown -> the prompt; two servers offering one name fail the list, naming both. */
  private async index(ctx: CallContext): Promise<Map<string, OfferedPrompt>> {
    const out = new Map<string, OfferedPrompt>();
    for (const [server, prompts] of await this.d.lists.all('prompts', ctx)) {
      for (const p of prompts) {
        const name = String(p.name);
        const shown = this.d.passthrough.includes(server) ? name : safeName(`${server}_${name}`);
        const other = out.get(shown);
        if (other)
          throw new ProtocolError(
            CODES.InternalError,
            `prompt ${JSON.stringify(shown)} is offered by both ${other.server} and ${server}`,
          );
        out.set(shown, { server, name, prompt: p });
      }
    }
    return out;
  }

  async list(ctx: CallContext): Promise<JsonObject[]> {
    return [...(await this.index(ctx)).entries()].map(([shown, e]) => ({ ...e.prompt, name: shown }));
  }

  /** The prompt a client names, if its endpoint offers one of that name. */
  async find(name: string, ctx: CallContext): Promise<OfferedPrompt | undefined> {
    return (await this.index(ctx)).get(name);
  }
}
