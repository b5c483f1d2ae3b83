// A row of the settings table (config/settings.ts): a setting's key, kind, default and description.

type Kind = 'duration' | 'integer' | 'boolean' | 'string' | 'list' | 'revisions' | 'revision' | 'object';

export interface SettingDef {
  readonly key: string;
  readonly kind: Kind;
  readonly default: unknown;
  readonly description: string;
  /** Extra environment variable names (aliases, e.g. MCPX_MCP_SPEC for spec.first). */
  readonly env?: readonly string[];
  readonly min?: number;
  /** The values a string setting may take. */
  readonly choices?: readonly string[];
  /** An `object` setting's reader: the value, or an Error saying what is wrong with it. */
  readonly parse?: (raw: unknown) => unknown;
  /** A credential: `mcpx settings` says whether it is set, never its value. */
  readonly secret?: boolean;
}

export const D = (
  key: string,
  kind: Kind,
  def: unknown,
  description: string,
  extra: Partial<SettingDef> = {},
): SettingDef => ({
  key,
  kind,
  default: def,
  description,
  ...extra,
});
