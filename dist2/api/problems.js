import { FAILURE_OUTCOMES } from '../model.js';
import { costByDay, costRows, priceCost } from '../problems/cost.js';
import { changeStatus } from '../problems/lifecycle.js';
import { PROBLEM_STATUSES, problemById, problemExamples, problemHours, problemModels, queryProblems, } from '../problems/store.js';
import { parseSince } from '../util/time-params.js';
import { DEFAULT_ATTRIBUTION } from '../changes/config.js';
import { attribute, presentAttribution } from '../queries/attribution.js';
import { badRequest, badSince, TIME_BOUND } from './bad-request.js';
const DAY = 86_400_000;
const ACTIONS = ['resolve', 'mute', 'reopen'];
export async function problemsRoutes(app, opts) {
    const attribution = opts.attribution ?? DEFAULT_ATTRIBUTION;
    const prices = opts.prices ?? {};
    app.get('/api/problems', {
        schema: {
            querystring: {
                type: 'object',
                additionalProperties: false,
                properties: {
                    status: { enum: [...PROBLEM_STATUSES] },
                    service: { type: 'string', maxLength: 200 },
                    tool: { type: 'string', maxLength: 1000 },
                    outcome: { enum: [...FAILURE_OUTCOMES, 'execution', '_other'] },
                    model: { type: 'string', maxLength: 200 },
                    since: { type: 'string', maxLength: 64 },
                    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
                },
            },
        },
    }, async (req, reply) => {
        const q = req.query;
        const now = opts.now();
        const sinceMs = q.since === undefined ? now - DAY : parseSince(q.since, now);
        if (sinceMs === undefined)
            return badSince(reply);
        const reader = opts.read(req);
        const problems = await queryProblems(reader.store.sql, {
            ...(q.status ? { status: q.status } : {}),
            ...(q.service ? { service: q.service } : {}),
            ...(q.tool ? { tool: q.tool } : {}),
            ...(q.outcome ? { outcome: q.outcome } : {}),
            ...(q.model ? { model: q.model } : {}),
            sinceMs,
            sees: (s) => reader.view.sees(s),
            limit: q.limit ?? 100,
        });
        // The cost of each listed problem's repairs since the day `since` falls in: one read for the list.
        const costs = new Map();
        if (problems.length > 0)
            for (const r of await costRows(reader.store.sql, { ...(q.service ? { service: q.service } : {}), sinceMs }))
                costs.set(`${r.service}\u0000${r.id}`, [...(costs.get(`${r.service}\u0000${r.id}`) ?? []), r]);
        return {
            since: new Date(sinceMs).toISOString(),
            problems: problems.map((p) => ({
                ...present(p),
                cost: presentCost(priceCost(costs.get(`${p.service}\u0000${p.id}`) ?? [], prices)),
            })),
        };
    });
    const idParams = {
        type: 'object',
        properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
        required: ['id'],
    };
    const serviceQuery = {
        type: 'object',
        additionalProperties: false,
        properties: { service: { type: 'string', maxLength: 200 } },
    };
    app.get('/api/problems/:id', { schema: { params: idParams, querystring: serviceQuery } }, async (req, reply) => {
        const reader = opts.read(req);
        const found = await visible(reader.store.sql, req.params.id, req.query.service, (s) => reader.view.sees(s));
        if (found.kind !== 'one')
            return notOne(reply, found.kind);
        const p = found.problem;
        const sql = reader.store.sql;
        // The change named as its likely cause (src/changes/attribute.ts); `_other` groups many failures.
        const subject = { service: p.service, tool: p.tool, outcomes: [p.outcome], beganMs: p.firstSeenMs };
        const [hours, models, examples, costs, cause] = await Promise.all([
            problemHours(sql, p.service, p.id),
            problemModels(sql, p.service, p.id),
            problemExamples(sql, p.service, p.id),
            costRows(sql, { service: p.service, id: p.id }),
            p.outcome === '_other' ? undefined : attribute(sql, subject, { ...attribution, nowMs: opts.now() }),
        ]);
        return {
            ...present(p),
            ...(cause ? presentAttribution(subject, cause, attribution.windowMs) : { likely_change: null }),
            hours: hours.map((h) => ({ hour: new Date(h.hour).toISOString(), count: h.count })),
            days: daysOf(hours),
            models,
            cost: presentCost(priceCost(costs, prices)),
            costByDay: costByDay(costs, prices).map(({ day, ...c }) => ({
                day: new Date(day).toISOString().slice(0, 10),
                ...presentCost(c),
            })),
            costByModel: [...new Set(costs.map((c) => c.model))].map((model) => ({
                model,
                ...presentCost(priceCost(costs.filter((c) => c.model === model), prices)),
            })),
            examples: examples.map((e) => ({
                slot: String(e.slot),
                time: new Date(Number(e.time_ms)).toISOString(),
                model: String(e.model),
                traceId: String(e.trace_id),
                spanId: String(e.span_id),
                name: String(e.name),
                ...(e.arguments !== null && e.arguments !== undefined ? { arguments: String(e.arguments) } : {}),
                message: String(e.message),
            })),
        };
    });
    for (const action of ACTIONS)
        app.post(`/api/problems/:id/${action}`, {
            schema: {
                params: idParams,
                body: {
                    type: ['object', 'null'],
                    additionalProperties: false,
                    properties: {
                        service: { type: 'string', maxLength: 200 },
                        ...(action === 'mute' ? { until: { type: 'string', maxLength: 64 } } : {}),
                    },
                },
            },
        }, async (req, reply) => {
            const body = req.body ?? {};
            const now = opts.now();
            let untilMs;
            if (body.until !== undefined) {
                // A duration means from now on (`until: 7d`); a time is taken as it is.
                const back = parseSince(body.until, now);
                if (back === undefined)
                    return badRequest(reply, `body/until: must be ${TIME_BOUND}`);
                untilMs = /^\d+(?:ms|s|m|h|d)$/.test(body.until) ? now + (now - back) : back;
            }
            const reader = opts.read(req);
            const sql = reader.store.sql;
            const found = await visible(sql, req.params.id, body.service, (s) => reader.view.sees(s));
            if (found.kind !== 'one')
                return notOne(reply, found.kind);
            await changeStatus(sql, found.problem.service, found.problem.id, action, now, untilMs);
            const [after] = await problemById(sql, found.problem.id, found.problem.service);
            return present(after);
        });
}
/** The problem the reader may see; `_other` exists once per service, so it needs the service. */
async function visible(sql, id, service, sees) {
    const rows = (await problemById(sql, id, service)).filter((p) => sees(p.service));
    if (rows.length === 0)
        return { kind: 'none' };
    return rows.length === 1 ? { kind: 'one', problem: rows[0] } : { kind: 'ambiguous' };
}
function notOne(reply, kind) {
    return kind === 'none'
        ? reply.code(404).send({ error: 'Not Found', message: 'no such problem' })
        : badRequest(reply, 'this id exists in several services: name one with service');
}
/** Occurrences per UTC day, from the hourly counts. */
function daysOf(hours) {
    const days = new Map();
    for (const h of hours) {
        const day = new Date(h.hour).toISOString().slice(0, 10);
        days.set(day, (days.get(day) ?? 0) + h.count);
    }
    return [...days].map(([day, count]) => ({ day, count }));
}
function presentCost(c) {
    return {
        repairs: c.repairs,
        repaired: c.repaired,
        retries: c.retries,
        steps: c.steps,
        inputTokens: c.inputTokens,
        outputTokens: c.outputTokens,
        durationMs: c.durationMs,
        usd: c.usd,
        unpricedTokens: c.unpricedTokens,
    };
}
function present(p) {
    return {
        id: p.id,
        service: p.service,
        outcome: p.outcome,
        tool: p.tool,
        signature: p.canonical,
        parts: p.parts,
        status: p.status,
        ...(p.isNew !== undefined ? { new: p.isNew } : {}),
        occurrences: p.occurrences,
        ...(p.recent !== undefined ? { recent: p.recent } : {}),
        firstSeen: new Date(p.firstSeenMs).toISOString(),
        lastSeen: new Date(p.lastSeenMs).toISOString(),
        statusChanged: new Date(p.statusMs).toISOString(),
        ...(p.mutedUntilMs !== null ? { mutedUntil: new Date(p.mutedUntilMs).toISOString() } : {}),
    };
}
//# sourceMappingURL=problems.js.map