// `mcpx guardrails check [FILE|-]` (docs/gateway.md "Guardrails"): a text screened by the config file's
// guardrails as a tool's result would be (or a description, or arguments: --on), for one server and tool
// or for any (--server, --tool), with a profile's rules too (--profile) — so a person can try rules and
// detectors before a model meets them. It prints each finding (detector, kind, rule, action, how many;
// never the text found) and the verdict, or with --text the text as it would reach the model; exit 1 when
// it would be blocked. An external detector in the rules is asked as the gateway would ask it.
import { BUILT_IN_DETECTORS, type Guardrails, type ScreenedPlace } from '../config/guardrails';
import { NotReadable, readRegularFile } from '../config/regularFile';
import { Screen } from '../guardrails/screen';
import { printable, printableLines } from '../kit/printable';
import { type Args, UsageError } from './args';
import { readStdin } from './call';
import type { Command } from './command';
import { configOf, reportIssues } from './config';

export const guardrails: Command = {
  usage: [
    [
      'guardrails check [FILE|-] [--on results|descriptions|arguments]',
      "screen a text (stdin without FILE) by the config's guardrails:",
      'each finding and the verdict (--text: the text as it passes,',
      '--server, --tool, --profile: whose rules); exit 1 if blocked',
    ],
  ],
  flags: ['config', 'on', 'server', 'tool', 'profile', 'text'],
  positional: true,
  run,
};

const PLACES: readonly ScreenedPlace[] = ['results', 'descriptions', 'arguments'];
/** A text to try rules on is a person's sample, not a stream: past this it is refused. */
const MAX_BYTES = 16 * 1024 * 1024;

async function textOf(file: string | undefined): Promise<string> {
  if (file === undefined || file === '-') {
    const text = await readStdin();
    if (Buffer.byteLength(text) > MAX_BYTES) throw new Error(`stdin is more than the ${MAX_BYTES} bytes read`);
    return text;
  }
  try {
    return await readRegularFile(file, MAX_BYTES);
  } catch (e) {
    if (e instanceof NotReadable) throw new Error(e.message);
    throw new Error(`${file} could not be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

async function run(a: Args): Promise<void> {
  const [verb, file, extra] = a.positional;
  if (verb !== 'check')
    throw new UsageError(
      verb === undefined
        ? 'mcpx guardrails: name a verb (check)'
        : `mcpx guardrails: unknown verb ${JSON.stringify(verb)}`,
    );
  if (extra !== undefined) throw new UsageError(`mcpx guardrails check: unexpected argument ${JSON.stringify(extra)}`);
  const on = (a.on ?? 'results') as ScreenedPlace;
  if (!PLACES.includes(on)) throw new UsageError(`--on: expected ${PLACES.join(', ')}, got ${JSON.stringify(a.on)}`);
  const config = configOf(a);
  reportIssues(config);
  const lists: Guardrails[] = [];
  if (a.profile !== undefined) {
    const profile = config.profiles?.get(a.profile);
    if (!profile) throw new UsageError(`--profile: no profile named ${JSON.stringify(a.profile)} in ${config.source}`);
    if (profile.guardrails) lists.push(profile.guardrails);
  }
  if (config.guardrails) lists.push(config.guardrails);
  const screen = new Screen(lists);
  const plan = screen.plan({ on, server: a.server, target: a.tool });
  const text = await textOf(file);
  const out = process.stdout;
  if (!plan) {
    out.write(
      `${printable(`no rule of ${config.source} screens ${on}${a.server ? ` of ${a.server}` : ''}${a.tool ? `/${a.tool}` : ''}`)} (detectors: ${BUILT_IN_DETECTORS.join(', ')} and the config's)\n`,
    );
    if (a.text) out.write(printableLines(text));
    return;
  }
  const screened = await screen.screen(text, plan, 'text');
  for (const note of screened.notes) process.stderr.write(`mcpx: ${note}\n`);
  // The text is the person's sample, but it may be a tool's output with a terminal's escapes in it.
  if (a.text) out.write(printableLines(screened.value));
  else {
    for (const f of screened.findings)
      out.write(
        `${printable(`${f.detector}/${f.kind}${f.count > 1 ? ` ×${f.count}` : ''}  ${f.action}  (${f.rule})`)}\n`,
      );
    out.write(`verdict: ${screened.verdict}${screened.findings.length ? '' : ' (nothing found)'}\n`);
  }
  if (screened.verdict === 'block') process.exitCode = 1;
}
