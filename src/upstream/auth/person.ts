// The person's part of a sign-in, one port per host: the editor (a notification, then the browser),
// `mcpx auth login` (prints the URL, opens a browser when there is one), the calling client (URL
// elicitation), the conformance client (follows the redirect).

/** What the person is asked: which server, whose sign-in page. */
export interface SignInRequest {
  server: string;
  /** The authorization server's host, named to the person before anything opens. */
  issuerHost: string;
  issuer: string;
  scopes: string[];
  /** The authorization URL; the browser's answer comes back to the loopback listener. */
  url: URL;
  signal: AbortSignal;
}

export interface SignInPort {
  /** Whether somebody can sign in now. A headless daemon cannot: the call fails at once, naming the fix. */
  available(): boolean;
  /** Asks the person and, when they agree, sends the browser to `req.url`. Rejects when declined. */
  open(req: SignInRequest): Promise<void>;
  /** A token from an account the host already has for this authorization server (VS Code's GitHub or
   *  Microsoft sign-in), instead of a second sign-in; undefined when it has none or the person declines. */
  existingSession?(issuer: string, scopes: string[]): Promise<string | undefined>;
}
