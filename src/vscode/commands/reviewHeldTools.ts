// mcpx: Review Held Tools… and mcpx: Accept Held Tools (docs/gateway.md "Pins"): a server's tools and
// prompts held since they changed, from the palette (the servers with something held offered) or a held
// tool's row in the Upstreams view (its context menu).
import type { GatewayFacade } from '../../gateway/editorPort';
import { type Deps, gatewayCommand } from './command';

/** A held tool's row of the Upstreams view, or (server, name) from a caller. */
type HeldArg = { server?: string; item?: { name?: unknown } } | string | undefined;

/** The server and definition named by the arguments, else a server with something held, picked. */
async function heldOf(d: Deps, g: GatewayFacade, arg: HeldArg, name?: string) {
  if (typeof arg === 'string') return { server: arg, name };
  if (arg?.server) return { server: arg.server, name: typeof arg.item?.name === 'string' ? arg.item.name : undefined };
  const held = g.pinViews().filter((v) => v.held.length);
  if (!held.length) return void d.window.showInformationMessage('mcpx: no tool or prompt is held.');
  if (held.length === 1) return { server: held[0]!.server, name: undefined };
  const picked = await d.window.showQuickPick(
    held.map((v) => ({
      label: v.server,
      description: `${v.held.length} held: ${v.held.map((h) => h.name).join(', ')}`,
    })),
    { title: 'mcpx: the server whose held definitions to review' },
  );
  return picked && { server: picked.label, name: undefined };
}

export const reviewHeldTools = gatewayCommand(async (d, g, arg?: HeldArg, name?: string) => {
  const which = await heldOf(d, g, arg, name);
  return which ? d.pins.review(g, which.server, which.name) : [];
});

export const acceptHeldTools = gatewayCommand(async (d, g, arg?: HeldArg, name?: string) => {
  const which = await heldOf(d, g, arg, name);
  if (!which) return [];
  const accepted = g.acceptPins(which.server, which.name);
  void d.window.showInformationMessage(
    accepted.length
      ? `mcpx: accepted ${accepted.join(', ')} of ${which.server}; its clients are told.`
      : `mcpx: nothing of ${which.server} is held.`,
  );
  return accepted;
});
