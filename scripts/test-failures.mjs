// A node:test reporter beside TAP (package.json "test"): it writes only the failed tests — file, the path of
// names down to the test, and the first lines of the error — so a long run's failures can be read without
// scrolling its whole TAP output (.ci/run prints this file when the tests fail).
const MAX_ERROR_LINES = 12;

export default async function* failures(source) {
  const stack = [];
  const failed = [];
  for await (const event of source) {
    const { type, data } = event;
    if (type === 'test:start') stack[data.nesting] = data.name;
    if (type !== 'test:fail') continue;
    const error = data.details?.error;
    // A suite fails when one of its tests does; the test is what is listed.
    if (error?.failureType === 'subtestsFailed') continue;
    const path = [...stack.slice(0, data.nesting), data.name].join(' › ');
    const cause = error?.cause ?? error;
    const text = String(cause?.stack ?? cause?.message ?? cause ?? 'failed')
      .split('\n')
      .filter((line) => !/\bnode:(internal|async_hooks)/.test(line));
    failed.push(`✖ ${data.file ?? '?'}\n  ${path}\n    ${text.slice(0, MAX_ERROR_LINES).join('\n    ')}\n`);
  }
  yield failed.length === 0 ? 'no test failed\n' : `${failed.length} failed:\n\n${failed.join('\n')}`;
}
