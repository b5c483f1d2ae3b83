// What a request is offered, as tool search sees it: the servers whose tools are listed and which of
// their tools pass — its endpoint's view (profiles/view.ts: every configured server and its
// `tools.allow`/`tools.deny` on the default endpoint, a profile's servers and globs on its own), the same
// set mcpx_tools lists and mcpx_call reaches (docs/gateway.md "Tool search", "Profiles").

export interface Offer {
  /** The servers listed, in order. */
  readonly servers: readonly string[];
  /** Whether the upstream tool `name` of `server` is offered. */
  allows(server: string, name: string): boolean;
}

/** The offer of an endpoint's view. */
export function offeredTools(view: { servers(): string[]; allows(server: string, name: string): boolean }): Offer {
  return { servers: view.servers(), allows: (server, name) => view.allows(server, name) };
}
