// `mcpx`, the command line (README.md "The command line"): this dispatcher and one module per subcommand
// in src/cli/, each declaring its usage and the flags it takes (src/cli/command.ts), the flags read in
// one place (src/cli/args.ts). A subcommand's module is loaded only when it runs (the table below), so
// `mcpx serve --transport stdio` onto a running gateway loads no gateway, server or app module.
// Exit status 2 on any error (src/bin.ts); `mcpx call` also 1 on an isError result.
import { FLAG_NOTES, type FlagName, ForeignFlag, UsageError, parseArgs } from './cli/args';
import { type Command, usageText } from './cli/command';
import { printableLines } from './kit/printable';

/** Every subcommand, in the order the usage lists them. */
export const COMMANDS: Record<string, () => Promise<Command>> = {
  daemon: async () => (await import('./cli/daemon')).daemon,
  serve: async () => (await import('./cli/serve')).serve,
  settings: async () => (await import('./cli/settings')).settings,
  elicit: async () => (await import('./cli/elicit')).elicit,
  tasks: async () => (await import('./cli/tasks')).tasks,
  activity: async () => (await import('./cli/activity')).activity,
  tools: async () => (await import('./cli/tools')).tools,
  call: async () => (await import('./cli/call')).call,
  read: async () => (await import('./cli/read')).read,
  exec: async () => (await import('./cli/exec')).exec,
  auth: async () => (await import('./cli/auth')).auth,
  reload: async () => (await import('./cli/reload')).reload,
  restart: async () => (await import('./cli/restart')).restart,
  permissions: async () => (await import('./cli/permissions')).permissions,
  pins: async () => (await import('./cli/pins')).pins,
  profiles: async () => (await import('./cli/profiles')).profiles,
  connect: async () => (await import('./cli/connect')).connect,
  disconnect: async () => (await import('./cli/connect')).disconnect,
  registry: async () => (await import('./cli/registry')).registry,
  install: async () => (await import('./cli/install')).installCommand,
  uninstall: async () => (await import('./cli/uninstall')).uninstall,
  update: async () => (await import('./cli/update')).update,
};

const HELP = new Set(['help', '--help', '-h']);

/** Every subcommand, loaded: for the whole usage, and to say which subcommands take a flag. */
async function everyCommand(): Promise<Array<[string, Command]>> {
  return Promise.all(Object.entries(COMMANDS).map(async ([name, load]) => [name, await load()] as [string, Command]));
}

/** The usage of these subcommands, with the notes of the flags they take. */
function usageOf(commands: readonly Command[]): string {
  const flags = new Set(commands.flatMap((c) => c.flags));
  const notes = Object.entries(FLAG_NOTES).flatMap(([flag, note]) => (flags.has(flag as FlagName) ? [note] : []));
  return usageText(
    commands.flatMap((c) => c.usage),
    notes,
  );
}

async function wholeUsage(): Promise<string> {
  return usageOf((await everyCommand()).map(([, c]) => c));
}

async function commandNamed(name: string): Promise<Command> {
  if (!Object.hasOwn(COMMANDS, name)) throw new Error(`unknown command ${JSON.stringify(name)}\n${await wholeUsage()}`);
  return COMMANDS[name]!();
}

/** `--all: only mcpx tasks takes it`, `--connect: only mcpx serve, tools, call and read take it`. */
async function takenBy(flag: FlagName): Promise<string> {
  const names = (await everyCommand()).filter(([, c]) => c.flags.includes(flag)).map(([n]) => n);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0];
  return `--${flag}: only mcpx ${list} ${names.length > 1 ? 'take' : 'takes'} it`;
}

const print = (text: string) => void process.stdout.write(`${text}\n`);

export async function main(argv: string[]): Promise<void> {
  const [name = 'help', ...rest] = argv;
  if (HELP.has(name)) {
    // `mcpx help`: every subcommand; `mcpx help SUBCOMMAND`: that one.
    if (rest.length > 1) throw new Error(`usage: mcpx help [SUBCOMMAND]\n${await wholeUsage()}`);
    return print(rest[0] === undefined ? await wholeUsage() : usageOf([await commandNamed(rest[0])]));
  }
  const command = await commandNamed(name);
  try {
    const a = parseArgs(name, command, rest);
    if (a.help) return print(usageOf([command]));
    await command.run(a);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    const message = e instanceof ForeignFlag ? await takenBy(e.flag) : e.message;
    throw new Error(`${message}\n${usageOf([command])}`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e: Error) => {
    // A message may quote what a client or an upstream chose (a refusal, an error relayed).
    process.stderr.write(`mcpx: ${printableLines(e.message)}\n`);
    process.exit(2);
  });
}
