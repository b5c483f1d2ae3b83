// Owner-only on Windows (docs/platforms.md "Owner-only files"): mode bits mean nothing there, so a
// private directory gets an access list that grants its owner alone — inheritance from the parent cut,
// one entry for the current user's SID, inherited by every file and folder made in it — set with icacls
// and read back with icacls. The decisions (what to run, what its answer means, what to do next) are
// plain functions, unit-tested; what Wine cannot show (NTFS's own semantics) is listed in that page.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

export interface User {
  /** DOMAIN\name, as icacls names principals. */
  name: string;
  sid?: string;
}

/** `whoami /user /fo csv /nh`: "DOMAIN\name","S-1-5-…"; a whoami that prints the name alone (Wine's)
 *  gives no SID. */
export function parseWhoami(out: string): User | undefined {
  const m = /^"([^"]+)","(S-[\d-]+)"/m.exec(out.trim());
  if (m) return { name: m[1]!, sid: m[2]! };
  const name = /^([^\s"\\]+\\[^\s"]+)$/m.exec(out.trim())?.[1];
  return name ? { name } : undefined;
}

/** icacls's arguments that leave `dir` granting its user alone: inherited entries removed, one full-control
 *  entry (by SID where known, whatever the account's name or language) inherited by what is made inside. */
export function grantArgs(dir: string, user: User): string[] {
  return [dir, '/inheritance:r', '/grant:r', `${user.sid ? `*${user.sid}` : user.name}:(OI)(CI)F`];
}

export interface Ace {
  principal: string;
  rights: string;
}

/** The entries of `icacls DIR`: the first line starts with DIR, each entry is PRINCIPAL:(…)(…), then a
 *  blank line and a summary (in the system's language: not read). */
export function parseIcacls(out: string, dir: string): Ace[] {
  const aces: Ace[] = [];
  const lines = out.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (i === 0 && line.toLowerCase().startsWith(dir.toLowerCase())) line = line.slice(dir.length);
    line = line.trim();
    if (!line) {
      if (aces.length) break;
      continue;
    }
    const at = line.lastIndexOf(':(');
    if (at <= 0 || !line.endsWith(')')) continue;
    aces.push({ principal: line.slice(0, at), rights: line.slice(at + 1) });
  }
  return aces;
}

export type Verdict = { kind: 'owner-only' } | { kind: 'wider'; others: string[] } | { kind: 'unreadable' };

/** Whether `aces` grant `user` alone (a DENY entry grants nobody anything). */
export function judge(aces: readonly Ace[], user: User): Verdict {
  if (aces.length === 0) return { kind: 'unreadable' };
  const ids = user.sid ? [user.name, user.sid, `*${user.sid}`] : [user.name];
  const mine = (p: string) => ids.some((x) => x.toLowerCase() === p.toLowerCase());
  const others = aces.filter((a) => !mine(a.principal) && !a.rights.includes('(DENY)')).map((a) => a.principal);
  return others.length ? { kind: 'wider', others: [...new Set(others)] } : { kind: 'owner-only' };
}

/** After reading the list (and setting it once, `set`): done, set it, or say so. An unreadable list (no
 *  entries at all: not the real icacls) is set once, then reported, not refused. */
export function nextStep(v: Verdict, set: boolean): 'done' | 'set' | 'refuse' | 'warn' {
  if (v.kind === 'owner-only') return 'done';
  if (!set) return 'set';
  return v.kind === 'wider' ? 'refuse' : 'warn';
}

type Run = (command: string, args: string[]) => { status: number | null; out: string };

/** Runs a system tool hidden; its output read as bytes (the console's code page: whoami's and icacls's
 *  names compare byte for byte). */
const runTool: Run = (command, args) => {
  const r = spawnSync(command, args, { windowsHide: true, timeout: 15_000 });
  return { status: r.status, out: `${r.stdout?.toString('latin1') ?? ''}${r.error ? r.error.message : ''}` };
};

/** The directories this process made owner-only (icacls runs once per directory and process). */
const done = new Set<string>();

/** `dir`, created if missing, granting the current user alone: checked, set where it is wider, checked
 *  again. A list still wider is an error; one that cannot be read is said on `warn`. */
export function protectDir(
  dir: string,
  run: Run = runTool,
  warn: (line: string) => void = (l) => void process.stderr.write(`${l}\n`),
): void {
  const key = dir.toLowerCase();
  if (done.has(key)) return;
  mkdirSync(dir, { recursive: true });
  const who = run('whoami', ['/user', '/fo', 'csv', '/nh']);
  const user = parseWhoami(who.out);
  if (!user) throw new Error(`cannot make ${dir} owner-only: whoami did not name the current user`);
  for (let set = false; ; set = true) {
    const v = judge(parseIcacls(run('icacls', [dir]).out, dir), user);
    const step = nextStep(v, set);
    if (step === 'done') break;
    if (step === 'set') {
      const r = run('icacls', grantArgs(dir, user));
      if (r.status !== 0)
        throw new Error(`cannot make ${dir} owner-only: icacls failed: ${r.out.trim().slice(0, 300)}`);
      continue;
    }
    if (step === 'refuse' && v.kind === 'wider')
      throw new Error(`cannot make ${dir} owner-only: its access list still grants ${v.others.join(', ')}`);
    warn(`mcpx: could not confirm that ${dir} is owner-only: icacls showed no access list`);
    break;
  }
  done.add(key);
}
