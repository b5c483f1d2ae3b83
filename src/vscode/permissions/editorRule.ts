// The palette's rule (docs/gateway.md "Permissions", "In the editor"): the editor's own palette asks the
// person before it calls a tool, unless one of the person's rules (or an "always" grant) allows it. A tool's
// annotations are the server's untrusted hints (2025-11-25 server/tools "Tool Annotations"; docs/security.md):
// a `readOnlyHint` alone is not a reason to run it unasked. The rule is placed after the person's rules
// (theirs decide first) and only where the default is `allow`: under `ask` it would change nothing, and
// under `deny` it would let through what the person refused.
import { ALLOW_ALL, type PermissionRule, type Permissions } from '../../config/permissions';
import { EDITOR_IDENTITY } from '../editorCall';

export const EDITOR_RULE: PermissionRule = {
  client: { identity: EDITOR_IDENTITY },
  kind: 'tool',
  action: 'ask',
};

/** The permissions the editor's gateway runs with: the person's, and the palette's rule after them. */
export function withEditorRule(p: Permissions | undefined): Permissions {
  const base = p ?? ALLOW_ALL;
  if (base.default !== 'allow') return base;
  return { ...base, rules: [...base.rules, EDITOR_RULE] };
}
