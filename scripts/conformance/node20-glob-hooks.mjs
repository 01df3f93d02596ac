/**
 * The loader hooks of node20-glob.mjs (they run on the loader thread). Only imports of `fs` made
 * from inside the conformance package are redirected; the shim's own import of `node:fs` is not,
 * so there is no loop.
 */
const SHIM = new URL('./fs-with-glob.mjs', import.meta.url).href;
const SUITE = '/node_modules/@modelcontextprotocol/conformance/';

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes(SUITE)) {
    return { url: SHIM, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
