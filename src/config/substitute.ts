// ${env:NAME}, ${workspaceFolder}, ${userHome} and ${secret:NAME} in the strings of a config value: the
// config file's loader (./file.ts) and the stdio shim's zod-free reader of it (./discovery.ts) share it.
import { homedir } from 'node:os';
import type { ConfigIssue } from './servers';

export interface SubstitutionContext {
  env: NodeJS.ProcessEnv;
  workspaceFolder?: string;
  /** ${secret:NAME}: the editor's SecretStorage (credentials never stand in settings or files). */
  secrets?: Readonly<Record<string, string>>;
}

/** ${env:NAME} and ${workspaceFolder}, in every string of the file. An unknown variable is an issue. */
export function substitute(v: unknown, ctx: SubstitutionContext, path: string, issues: ConfigIssue[]): unknown {
  if (typeof v === 'string') {
    return v.replace(/\$\{([^}]+)\}/g, (whole, name: string) => {
      if (name.startsWith('env:')) return ctx.env[name.slice(4)] ?? '';
      if (name.startsWith('secret:') && ctx.secrets) {
        const v = ctx.secrets[name.slice(7)];
        if (v === undefined)
          issues.push({
            path,
            message: `no secret named ${JSON.stringify(name.slice(7))} is stored (mcpx: Set Secret…)`,
          });
        return v ?? '';
      }
      if (name === 'workspaceFolder' && ctx.workspaceFolder !== undefined) return ctx.workspaceFolder;
      if (name === 'userHome') return homedir();
      issues.push({ path, message: `unknown variable ${whole}` });
      return whole;
    });
  }
  if (Array.isArray(v)) return v.map((x, i) => substitute(x, ctx, `${path}.${i}`, issues));
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, substitute(x, ctx, path ? `${path}.${k}` : k, issues)]),
    );
  }
  return v;
}
