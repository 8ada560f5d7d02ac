/**
 * Stateful fake tools (τ-bench style outcome checks): a suite's `tools.mjs` exports pure functions
 * `(args, state) → {result, state}` (or `{error, state}`) over a JSON state. They run in a `node:vm`
 * context with no imports, no network, no clock (`Date` and `Math.random` are gone) and a time
 * limit per call; arguments, state and answers cross the boundary as JSON text, so nothing is
 * shared with the harness. A case with `initial_state` threads the state through its calls; its
 * `expected_state` (or the state reached by replaying `reference_trajectory` through the same
 * functions) is compared with the end state, so any order of calls that reaches it passes.
 */
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
export const TOOL_TIME_LIMIT_MS = 1000;
export class StatefulToolError extends Error {
    name = 'StatefulToolError';
}
const EXPORT = /^export\s+(?:async\s+)?(function\s*\*?\s*|const\s+|let\s+|var\s+)([A-Za-z_$][\w$]*)/gm;
/** Compiles tools.mjs: `export function name(args, state) {…}` / `export const name = (args, state) => …`. */
export function loadStatefulTools(file, text = readFileSync(file, 'utf8')) {
    if (/^\s*import\b/m.test(text) || /\bimport\s*\(/.test(text))
        throw new StatefulToolError(`${file}: imports are not allowed (pure functions over the state only)`);
    if (/^export\s+(default|\{|\*)/m.test(text))
        throw new StatefulToolError(`${file}: export each tool as \`export function name(args, state)\``);
    const names = [];
    const body = text.replace(EXPORT, (_m, kind, name) => {
        names.push(name);
        return `${kind}${name}`;
    });
    if (!names.length)
        throw new StatefulToolError(`${file}: exports no function`);
    const ctx = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false } });
    // No clock and no randomness: the same calls always reach the same state.
    vm.runInContext('delete globalThis.Date; Math.random = () => { throw new Error("no randomness in tools.mjs"); };', ctx);
    try {
        new vm.Script(`${body}\n;globalThis.__tools = { ${names.join(', ')} };`, { filename: file }).runInContext(ctx, {
            timeout: TOOL_TIME_LIMIT_MS,
        });
    }
    catch (err) {
        throw new StatefulToolError(`${file}: ${err.message}`);
    }
    const invoke = new vm.Script('JSON.stringify(globalThis.__tools[globalThis.__name](JSON.parse(globalThis.__in).args, JSON.parse(globalThis.__in).state))');
    return {
        file,
        names,
        call(name, args, state) {
            if (!names.includes(name))
                throw new StatefulToolError(`${name}: not exported by ${file}`);
            const c = ctx;
            c.__name = name;
            c.__in = JSON.stringify({ args, state });
            let out;
            try {
                out = JSON.parse(String(invoke.runInContext(ctx, { timeout: TOOL_TIME_LIMIT_MS })));
            }
            catch (err) {
                const msg = err.message;
                throw new StatefulToolError(/timed out/.test(msg) ? `${name}: took longer than ${TOOL_TIME_LIMIT_MS} ms` : `${name}: ${msg}`);
            }
            if (!out || typeof out !== 'object' || !('state' in out) || !('result' in out || 'error' in out))
                throw new StatefulToolError(`${name}: must return {result, state} or {error, state}`);
            return out;
        },
    };
}
/** The end state of replaying a reference trajectory from the initial state. */
export function replayReference(tools, calls, initial) {
    let state = initial;
    for (const c of calls)
        state = tools.call(c.name, c.arguments, state).state;
    return state;
}
//# sourceMappingURL=stateful.js.map