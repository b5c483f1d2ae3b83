// The palette's old habit kept as a rule (docs/gateway.md "Permissions", "In the editor"): a tool that
// does not say it is read-only asks the person before the editor's own palette calls it. It is placed
// after the person's rules (theirs decide first) and only where the default is `allow`: under `ask` it
// would change nothing, and under `deny` it would let through what the person refused.
import { ALLOW_ALL, type PermissionRule, type Permissions } from '../../config/permissions';
import { EDITOR_IDENTITY } from '../editorCall';

export const EDITOR_RULE: PermissionRule = {
  client: { identity: EDITOR_IDENTITY },
  kind: 'tool',
  // An absent readOnlyHint reads as false (2025-11-25 server/tools "Tool Annotations"): this is "not true".
  annotations: { readOnlyHint: false },
  action: 'ask',
};

/** The permissions the editor's gateway runs with: the person's, and the palette's rule after them. */
export function withEditorRule(p: Permissions | undefined): Permissions {
  const base = p ?? ALLOW_ALL;
  if (base.default !== 'allow') return base;
  return { ...base, rules: [...base.rules, EDITOR_RULE] };
}
