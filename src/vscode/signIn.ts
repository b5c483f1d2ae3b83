// Signing in to upstreams in the editor (docs/gateway.md "Signing in to upstreams"): sign-ins kept in
// SecretStorage; the person asked by a notification that names the server and the authorization server's
// host, and the browser opened only when they agree; an account VS Code already has for that
// authorization server (GitHub, Microsoft) offered instead of a second sign-in. The commands are
// commands/signIn.ts and commands/signOut.ts.
import * as vscode from 'vscode';
import type { SignInPort, SignInRequest } from '../gateway/editorPort';

/** Authorization servers VS Code has a built-in authentication provider for, by issuer host. */
const PROVIDERS: Record<string, { id: string; label: string }> = {
  'github.com': { id: 'github', label: 'GitHub' },
  'login.microsoftonline.com': { id: 'microsoft', label: 'Microsoft' },
};

export class EditorSignIn implements SignInPort {
  /** Servers the person already asked to sign in to (the Sign In action): no second question. */
  private readonly asked = new Set<string>();

  constructor(private readonly log: vscode.LogOutputChannel) {}

  available(): boolean {
    return true;
  }

  /** The person chose Sign In on this server: the next sign-in goes straight to the browser. */
  approve(server: string): void {
    this.asked.add(server);
  }

  async open(req: SignInRequest): Promise<void> {
    if (!this.asked.delete(req.server)) {
      this.log.info(`[${req.server}] asking whether to sign in at ${req.issuerHost}`);
      const choice = await Promise.race([
        // A notification shows no `detail`: what access is asked for goes in the message itself.
        vscode.window.showInformationMessage(
          `mcpx: the server "${req.server}" asks you to sign in at ${req.issuerHost}${req.scopes.length ? ` (access: ${req.scopes.join(' ')})` : ''}.`,
          'Sign In',
          'Not Now',
        ),
        new Promise<undefined>((r) => req.signal.addEventListener('abort', () => r(undefined), { once: true })),
      ]);
      if (choice !== 'Sign In') throw new Error(`you chose not to sign in to ${req.server} now`);
    }
    this.log.info(`[${req.server}] opening the sign-in page of ${req.issuerHost} in the browser`);
    const opened = await vscode.env.openExternal(vscode.Uri.parse(req.url.href, true));
    if (!opened) throw new Error(`the browser could not be opened for ${req.issuerHost}`);
  }

  async existingSession(issuer: string, scopes: string[]): Promise<string | undefined> {
    const p = PROVIDERS[new URL(issuer).host];
    if (!p) return undefined;
    const session = await vscode.authentication.getSession(p.id, scopes, { silent: true }).then(
      (s) => s,
      () => undefined,
    );
    if (!session) return undefined;
    const choice = await vscode.window.showInformationMessage(
      `mcpx: use your ${p.label} account ${session.account.label} for this server instead of signing in again?`,
      'Use It',
      'Sign In Separately',
    );
    return choice === 'Use It' ? session.accessToken : undefined;
  }
}
