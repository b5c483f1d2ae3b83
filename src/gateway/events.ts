// Gateway events: one stream that the VS Code views and GET /v1/events both read — log messages,
// progress, resource updates, server state, list changes. Delivered as they happen; nothing is queued.
export type GatewayEvent =
  | { type: 'server.state'; server: string; state: string; error?: string }
  | { type: 'server.signIn'; server: string; state: string }
  | { type: 'server.log'; server: string; level: string; data: unknown; logger?: string }
  | { type: 'progress'; server: string; progress: number; total?: number; message?: string }
  | { type: 'resource.updated'; server: string; uri: string }
  | { type: 'list.changed'; server: string; list: string }
  | { type: 'question'; server: string; id: string; method: string; state: 'asked' | 'settled' }
  | { type: 'elicitation.complete'; server: string; elicitationId: string }
  /** Tools or prompts of a server became held by their pins (docs/gateway.md "Pins"). */
  | { type: 'pins.held'; server: string; tools: string[]; prompts: string[]; apps: string[]; skills?: string[] };

export class EventBus {
  private readonly listeners = new Set<(e: GatewayEvent & { at: number }) => void>();

  on(listener: (e: GatewayEvent & { at: number }) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(e: GatewayEvent): void {
    const stamped = { ...e, at: Date.now() };
    for (const l of this.listeners) {
      try {
        l(stamped);
      } catch {
        // a broken listener does not stop the others
      }
    }
  }
}
