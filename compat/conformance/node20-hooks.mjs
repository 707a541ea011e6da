// Module resolution hook for node20.mjs: the suite's own imports of fs get
// node20-fs.mjs; every other module gets the real fs.
const shim = new URL('./node20-fs.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
    if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
        return { url: shim, shortCircuit: true };
    }
    return next(specifier, context);
}
