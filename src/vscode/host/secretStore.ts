// Sign-ins to upstreams kept in the editor's SecretStorage (docs/security.md "Upstream sign-in tokens").
import type * as vscode from 'vscode';
import type { SecretStore } from '../../gateway/editorPort';

/** Keys of SecretStorage that hold sign-ins (src/upstream/auth/store.ts grantKey). */
export const isSignInKey = (key: string): boolean => key.startsWith('mcpx.oauth/');

export function secretStore(secrets: vscode.SecretStorage): SecretStore {
  return {
    get: async (k) => secrets.get(k),
    set: async (k, v) => secrets.store(k, v),
    delete: async (k) => secrets.delete(k),
  };
}
