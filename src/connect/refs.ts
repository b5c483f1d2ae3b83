// References to environment variables as each client spells them in its file, turned into mcpx's own
// `${env:NAME}` (config/substitute.ts): such a value names a secret without holding it, so it may be
// copied into mcpx's config as it is.
type Style = 'env-colon' | 'dollar-brace' | 'dollar' | 'brace-env';

const NAME = '([A-Za-z_][A-Za-z0-9_]*)';
const SOURCE: Record<Style, string> = {
  /** `${env:NAME}`: Cursor, Windsurf (and mcpx itself). */
  'env-colon': `\\$\\{env:${NAME}\\}`,
  /** `${NAME}`: Claude Code, Copilot CLI, Gemini CLI. */
  'dollar-brace': `\\$\\{${NAME}\\}`,
  /** `$NAME`: Gemini CLI. */
  dollar: `\\$${NAME}`,
  /** `{env:NAME}`: opencode. */
  'brace-env': `\\{env:${NAME}\\}`,
};

export type RefStyles = readonly Style[];

/** `value` with each reference spelled `${env:NAME}`; undefined when it holds none. */
export function asMcpxRefs(value: string, styles: RefStyles): string | undefined {
  if (!styles.length) return undefined;
  const re = new RegExp(styles.map((s) => SOURCE[s]).join('|'), 'g');
  let found = false;
  const out = value.replace(re, (...m: unknown[]) => {
    found = true;
    const name = (m.slice(1, styles.length + 1) as Array<string | undefined>).find((g) => g !== undefined);
    return `\${env:${name}}`;
  });
  return found ? out : undefined;
}
