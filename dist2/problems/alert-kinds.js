import { problemLine } from '../alerts/problem-message.js';
import { durationMs, durationSchema } from '../util/duration.js';
import { problemInWords } from './in-words.js';
import { OTHER_PROBLEM, partsOf } from './store.js';
const MAX_MODELS = 5;
/** The source over the problem tables: three reads per round, whatever the number of problems. */
export function problemRuleSource(sql) {
    return {
        async current({ service }) {
            const only = service === undefined ? '' : ' AND p.service = ?';
            const args = service === undefined ? [] : [service];
            const live = `p.status IN ('open', 'regressed') AND p.id <> '${OTHER_PROBLEM}'${only}`;
            const [rows, models, examples] = await Promise.all([
                sql.all(`SELECT p.* FROM problems p WHERE ${live} ORDER BY p.service, p.id`, args),
                sql.all(`SELECT m.service, m.id, m.model, m.count FROM problem_models m
           JOIN problems p ON p.service = m.service AND p.id = m.id WHERE ${live}`, args),
                sql.all(`SELECT e.* FROM problem_examples e JOIN problems p ON p.service = e.service AND p.id = e.id
           WHERE e.slot = 'first' AND ${live}`, args),
            ]);
            const key = (r) => `${String(r.service)}\u0000${String(r.id)}`;
            const byProblem = new Map();
            for (const m of models) {
                const list = byProblem.get(key(m)) ?? [];
                list.push({ model: String(m.model), count: Number(m.count) });
                byProblem.set(key(m), list);
            }
            const firstExample = new Map(examples.map((e) => [key(e), e]));
            return rows.map((r) => {
                const e = firstExample.get(key(r));
                const parts = partsOf(r.parts);
                return {
                    service: String(r.service),
                    id: String(r.id),
                    outcome: String(r.outcome),
                    tool: String(r.tool),
                    parts,
                    status: String(r.status),
                    statusMs: Number(r.status_ms),
                    recordedMs: r.recorded_ms === null || r.recorded_ms === undefined ? null : Number(r.recorded_ms),
                    firstSeenMs: Number(r.first_seen_ms),
                    lastSeenMs: Number(r.last_seen_ms),
                    occurrences: Number(r.occurrences),
                    models: (byProblem.get(key(r)) ?? []).sort((a, b) => b.count - a.count || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0)),
                    ...(e
                        ? {
                            example: {
                                model: String(e.model),
                                traceId: String(e.trace_id),
                                name: String(e.name),
                                message: String(e.message),
                                ...(e.arguments === null || e.arguments === undefined ? {} : { arguments: String(e.arguments) }),
                                timeMs: Number(e.time_ms),
                            },
                        }
                        : {}),
                };
            });
        },
    };
}
const serviceKey = { type: 'string', minLength: 1 };
async function load(p, io) {
    // Problems off (no source): the rule sees none, as a judge rule does without a judge.
    return io.problems ? io.problems.current(p.service === undefined ? {} : { service: p.service }) : [];
}
export const newProblem = {
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
            min_occurrences: { type: 'integer', minimum: 1, default: 3 },
            within: { ...durationSchema, default: '10m' },
            service: serviceKey,
        },
    },
    load,
    evaluate(p, rows, now) {
        const withinMs = durationMs(p.within);
        return rows.map((r) => {
            const fresh = r.recordedMs !== null && now - r.recordedMs <= withinMs;
            const enough = r.occurrences >= p.min_occurrences;
            return observe(r, 'new', r.recordedMs ?? r.firstSeenMs, {
                active: r.status === 'open' && fresh && enough,
                keep: r.status === 'open',
                threshold: p.min_occurrences,
                now,
            });
        });
    },
};
export const regressedProblem = {
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: { within: { ...durationSchema, default: '10m' }, service: serviceKey },
    },
    load,
    evaluate(p, rows, now) {
        const withinMs = durationMs(p.within);
        return rows.map((r) => observe(r, 'regressed', r.statusMs, {
            active: r.status === 'regressed' && now - r.statusMs <= withinMs,
            keep: r.status === 'regressed',
            threshold: 1,
            now,
        }));
    },
};
function observe(r, transition, sinceMs, o) {
    const facts = {
        id: r.id,
        service: r.service,
        tool: r.tool,
        outcome: r.outcome,
        transition,
        what: problemInWords(r),
        occurrences: r.occurrences,
        firstSeenMs: r.firstSeenMs,
        lastSeenMs: r.lastSeenMs,
        sinceMs,
        models: r.models.slice(0, MAX_MODELS),
        moreModels: Math.max(0, r.models.length - MAX_MODELS),
        ...(r.example?.arguments !== undefined ? { arguments: r.example.arguments } : {}),
    };
    return {
        labels: { service: r.service, tool: r.tool, problem: r.id },
        active: o.active,
        keep: o.keep,
        value: r.occurrences,
        threshold: o.threshold,
        summary: problemLine(facts, o.now),
        details: {
            problem: facts,
            linkPath: `/problems/${encodeURIComponent(r.id)}`,
            ...(r.example
                ? {
                    example: {
                        tool: r.tool,
                        name: r.example.name,
                        outcome: r.outcome,
                        path: '',
                        message: r.example.message,
                        traceId: r.example.traceId,
                        time: new Date(r.example.timeMs).toISOString(),
                    },
                }
                : {}),
        },
    };
}
//# sourceMappingURL=alert-kinds.js.map