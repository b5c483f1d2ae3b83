// Module hooks registered by node20.mjs (Node 20 only): `fs` as imported by the conformance suite's
// bundle resolves to node20-fs.mjs, which adds the `globSync` Node 20 lacks.
const SHIM = new URL('./node20-fs.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (
    (specifier === 'fs' || specifier === 'node:fs') &&
    context.parentURL &&
    /\/conformance-(alpha|stable)\/dist\//.test(context.parentURL)
  ) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}
