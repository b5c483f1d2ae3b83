// A server.json's inputs (docs/registry.md "Inputs"): what one package or remote asks of the person —
// argument values, environment variables, headers, the variables of a value or a URL template — and
// their values rendered into argv, an environment and headers, never through a shell. A secret input's
// value never stands in what is rendered: a ${secret:NAME} reference does, and the value goes to the
// secret store (install.ts). Text the registry provides may not hold `${` (the config file's own
// substitution would read the gateway's environment or another server's secrets into it).
import type { Argument, Input, InputWithVariables, KeyValueInput, Package, Transport } from './types';

/** One input the person may (or must) give, named by the key `--env KEY=VALUE` uses. */
export interface Need {
  key: string;
  /** Where it goes, for a person: "environment variable BRAVE_API_KEY", "header X-API-Key", … */
  where: string;
  description?: string;
  required: boolean;
  secret: boolean;
  default?: string;
  choices?: readonly string[];
  format?: string;
  placeholder?: string;
  repeated?: boolean;
}

/** What was rendered: argv parts, environment, headers, a URL, the secrets to store, what is missing. */
export interface Rendered {
  runtimeArgs: string[];
  packageArgs: string[];
  env: Record<string, string>;
  headers: Record<string, string>;
  url?: string;
  /** Secret name -> value: for the secret store, never for the config file. */
  secrets: Record<string, string>;
  /** Every value that is not a secret, as given, for `mcpx update`. */
  inputs: Record<string, string[]>;
  /** The inputs whose values are in the secret store. */
  secretKeys: Set<string>;
  missing: Need[];
}

export class InputError extends Error {
  override name = 'InputError';
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const KEY = /^[A-Za-z0-9_.-]+$/;

/** Registry-provided text, refused where the config file would read something into it. */
function fixed(text: string, what: string): string {
  if (text.includes('${')) throw new InputError(`${what} holds "\${", which mcpx refuses in text from a registry`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(text)) throw new InputError(`${what} holds a control character`);
  return text;
}

const bare = (flag: string) => flag.replace(/^-+/, '');

function need(key: string, where: string, i: Input, repeated?: boolean): Need {
  if (!KEY.test(key)) throw new InputError(`${where}: ${JSON.stringify(key)} is not a usable input name`);
  return {
    key,
    where,
    required: i.isRequired === true,
    secret: i.isSecret === true,
    ...(i.description ? { description: i.description } : {}),
    ...(i.default !== undefined ? { default: fixed(i.default, `${where}: default`) } : {}),
    ...(i.choices ? { choices: i.choices } : {}),
    ...(i.format ? { format: i.format } : {}),
    ...(i.placeholder ? { placeholder: i.placeholder } : {}),
    ...(repeated ? { repeated } : {}),
  };
}

/** The variables of a fixed value: each `{name}` the value holds and its `variables` map defines. */
function variableNeeds(v: InputWithVariables, where: string): Need[] {
  if (v.value === undefined || !v.variables) return [];
  return Object.entries(v.variables)
    .filter(([name]) => v.value!.includes(`{${name}}`))
    .map(([name, i]) => need(name, `${where}: variable ${name}`, i));
}

const argKey = (a: Argument): string => (a.type === 'named' ? bare(a.name) : (a.valueHint ?? ''));
const argWhere = (a: Argument, list: string): string =>
  a.type === 'named' ? `${list} ${a.name}` : `${list} ${a.valueHint ?? '(positional)'}`;

/** The inputs of one argument, environment variable or header: itself when it has no fixed value, else
 *  the variables its value uses. */
function needsOfInput(i: InputWithVariables, key: string, where: string, repeated?: boolean): Need[] {
  if (i.value !== undefined) return variableNeeds(i, where);
  return [need(key, where, i, repeated)];
}

/** Every input of a package, in the order the person is asked. */
export function packageNeeds(p: Package): Need[] {
  const out: Need[] = [];
  for (const [list, args] of [
    ['runtime argument', p.runtimeArguments ?? []],
    ['argument', p.packageArguments ?? []],
  ] as const)
    for (const a of args) out.push(...needsOfInput(a, argKey(a), argWhere(a, list), a.isRepeated));
  for (const e of p.environmentVariables ?? []) out.push(...needsOfInput(e, e.name, `environment variable ${e.name}`));
  return dedupe(out);
}

/** Every input of a remote: its URL template's variables, then its headers. */
export function remoteNeeds(r: Transport): Need[] {
  const out: Need[] = [];
  for (const [name, i] of Object.entries(r.variables ?? {}))
    if (r.url?.includes(`{${name}}`)) out.push(need(name, `URL variable ${name}`, i));
  for (const h of r.headers ?? []) out.push(...needsOfInput(h, h.name, `header ${h.name}`));
  return dedupe(out);
}

/** One input per key: the first place asks, and the value serves every place that names the key. */
function dedupe(needs: Need[]): Need[] {
  const seen = new Map<string, Need>();
  for (const n of needs) {
    const was = seen.get(n.key);
    if (!was) seen.set(n.key, n);
    else {
      was.required ||= n.required;
      was.secret ||= n.secret;
    }
  }
  return [...seen.values()];
}

/** Renders one package's or remote's inputs from the person's values (key -> values, in order given). */
export class Renderer {
  readonly r: Rendered = {
    runtimeArgs: [],
    packageArgs: [],
    env: {},
    headers: {},
    secrets: {},
    inputs: {},
    secretKeys: new Set(),
    missing: [],
  };
  private readonly needs = new Map<string, Need>();

  constructor(
    needs: readonly Need[],
    private readonly given: ReadonlyMap<string, readonly string[]>,
    /** The secret store's name for an input's value. */
    private readonly secretName: (key: string) => string,
    /** Secret inputs already in the store (an update): referred to as they are unless given anew. */
    private readonly kept: ReadonlySet<string> = new Set(),
  ) {
    for (const n of needs) this.needs.set(n.key, n);
    for (const key of given.keys())
      if (!this.needs.has(key))
        throw new InputError(
          `--env ${key}: the server asks for no input of that name (it asks for: ${[...this.needs.keys()].join(', ') || 'none'})`,
        );
  }

  /** The values of one input as they are to be written: given, else its default; checked; a secret as
   *  its reference. Empty when it has none (a required one is then missing). */
  values(key: string): string[] {
    const n = this.needs.get(key);
    if (!n) return [];
    const given = this.given.get(key);
    if (n.secret && !given?.length && this.kept.has(key)) return [this.reference(key)];
    const raw: string[] = given?.length
      ? n.repeated
        ? [...given]
        : [given.at(-1)!]
      : n.default !== undefined
        ? [n.default]
        : [];
    if (!raw.length) {
      if (n.required && !this.r.missing.includes(n)) this.r.missing.push(n);
      return [];
    }
    for (const v of raw) check(n, v);
    if (!n.secret) {
      this.r.inputs[key] = [...raw];
      return raw;
    }
    // A repeated secret is rare: its values are joined into one stored value per input.
    this.r.secrets[this.secretName(key)] = raw.join('\n');
    return [this.reference(key)];
  }

  private reference(key: string): string {
    this.r.secretKeys.add(key);
    return `\${secret:${this.secretName(key)}}`;
  }

  /** A registry-fixed value with its `{variables}` filled; a `{name}` it does not define stays as it is. */
  fill(template: string, variables: Record<string, Input> | undefined, what: string): string | undefined {
    fixed(template, what);
    let missing = false;
    const out = template.replace(/\{([A-Za-z0-9_.-]+)\}/g, (whole, name: string) => {
      if (!variables?.[name]) return whole;
      const v = this.values(name)[0];
      if (v === undefined) missing = true;
      return v ?? '';
    });
    return missing ? undefined : out;
  }

  /** The values one argument, variable or header stands for. */
  private inputValues(i: InputWithVariables, key: string, what: string): string[] {
    if (i.value === undefined) return this.values(key);
    const v = this.fill(i.value, i.variables, what);
    return v === undefined ? [] : [v];
  }

  arguments(args: readonly Argument[], into: string[], list: string): void {
    for (const a of args) {
      const what = argWhere(a, list);
      const values = this.inputValues(a, argKey(a), what);
      // Never through a shell: each value is one argv item; a named argument is its flag, then its value.
      for (const v of values) into.push(...(a.type === 'named' ? [fixed(a.name, what), v] : [v]));
    }
  }

  environment(vars: readonly KeyValueInput[]): void {
    for (const e of vars) {
      if (!ENV_NAME.test(e.name))
        throw new InputError(`environment variable ${JSON.stringify(e.name)}: not a usable name`);
      const v = this.inputValues(e, e.name, `environment variable ${e.name}`)[0];
      if (v !== undefined) this.r.env[e.name] = v;
    }
  }

  headers(headers: readonly KeyValueInput[]): void {
    for (const h of headers) {
      if (!HEADER_NAME.test(h.name)) throw new InputError(`header ${JSON.stringify(h.name)}: not a usable name`);
      const v = this.inputValues(h, h.name, `header ${h.name}`)[0];
      if (v !== undefined) this.r.headers[h.name] = v;
    }
  }
}

/** A value against its input's choices and format; a control character is refused everywhere. */
function check(n: Need, v: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(v) && !n.secret)
    throw new InputError(`${n.key}: the value holds a control character`);
  if (n.choices?.length && !n.choices.includes(v))
    throw new InputError(`${n.key}: ${JSON.stringify(v)} is not one of ${n.choices.join(', ')}`);
  if (n.format === 'number' && !/^-?\d+(\.\d+)?$/.test(v))
    throw new InputError(`${n.key}: expected a number, got ${JSON.stringify(v)}`);
  if (n.format === 'boolean' && v !== 'true' && v !== 'false')
    throw new InputError(`${n.key}: expected true or false, got ${JSON.stringify(v)}`);
}
