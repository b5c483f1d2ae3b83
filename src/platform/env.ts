// Environment variables as a system compares their names: exactly (POSIX), or whatever their case
// (Windows, where `Path` and `PATH` are one variable and a child given both gets either).

/** The value of `name` in `env`. */
export function getEnv(env: NodeJS.ProcessEnv, name: string, caseless: boolean): string | undefined {
  if (!caseless || name in env) return env[name];
  const k = Object.keys(env).find((x) => x.toUpperCase() === name.toUpperCase());
  return k === undefined ? undefined : env[k];
}

/** Sets `name` (undefined: removes it), replacing a variable that differs only in case where `caseless`. */
export function setEnv(env: NodeJS.ProcessEnv, name: string, value: string | undefined, caseless: boolean): void {
  if (caseless)
    for (const k of Object.keys(env)) if (k !== name && k.toUpperCase() === name.toUpperCase()) delete env[k];
  if (value === undefined) delete env[name];
  else env[name] = value;
}
