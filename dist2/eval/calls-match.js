/**
 * Expected calls against the calls a model made: paired by name (each made call used once), the
 * arguments checked by the case's spec — literally for the exact-match rate — with `judge` and
 * `similar` checks answered by the context's lookup. Pure.
 */
import { argsProblems, literalEqual } from './args.js';
/** The argument lookup bound to a case and tool. */
export function askFor(c, ctx) {
    const look = ctx.argMatch;
    if (!look)
        return undefined;
    return (tool) => (q) => look({ c, tool, offered: ctx.offered, ...q });
}
/** Pairs expected calls with made ones by name (each made call used once); problems when any fails. */
export function callsProblems(expected, made, literal, ask, matches) {
    const used = new Set();
    const problems = [];
    for (const e of expected) {
        let best;
        let bestMatches = [];
        let found = -1;
        for (const [i, m] of made.entries()) {
            if (used.has(i) || m.name !== e.name)
                continue;
            let p;
            if (!m.parsed)
                p = [`${e.name}: arguments are not a JSON object`];
            else if (!e.args)
                p = [];
            else if (literal)
                p = literalEqual(e.args.literal, m.parsed)
                    ? []
                    : [`${e.name}: arguments differ from ${JSON.stringify(e.args.literal)}`];
            else {
                const mine = [];
                p = argsProblems(e.args, m.parsed, ask?.(e.name), mine).map((x) => `${e.name}.${x}`);
                if (p.length === 0 || best === undefined)
                    bestMatches = mine.map((x) => ({ ...x, tool: e.name }));
            }
            if (p.length === 0) {
                found = i;
                break;
            }
            best ??= p;
        }
        if (found >= 0)
            used.add(found);
        else
            problems.push(...(best ?? [`${e.name}: not called`]));
        matches?.push(...bestMatches);
    }
    return problems;
}
//# sourceMappingURL=calls-match.js.map