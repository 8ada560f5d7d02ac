/**
 * What changed, as a reader may see it: change events of the services its token sees, and one
 * tool's definition versions with a readable diff from each version to the next.
 */
import { listChanges, toolSetNames, toolVersions, valueCounts, } from '../changes/store.js';
import { describeChange, diffDefinitions } from '../tools/schema-diff.js';
import { FAILURE_OUTCOMES, isFailure, OUTCOMES } from '../model.js';
import { isoTime } from '../util/iso-time.js';
import { impactOf, presentJudged } from './attribution.js';
import { storeFilter } from '../util/service-view.js';
export async function changesList(r, q, attribution) {
    const events = await listChanges(r.store.sql, { ...q, ...storeFilter(r.view) });
    // Each change's impact on its scope's failure rate, its windows bounded by the service's other changes.
    const around = new Map();
    for (const e of events) {
        if (around.has(e.service))
            continue;
        const oldest = Math.min(...events.filter((x) => x.service === e.service).map((x) => x.timeMs));
        around.set(e.service, await listChanges(r.store.sql, { service: e.service, sinceMs: oldest - attribution.windowMs, limit: 1000 }));
    }
    const impacts = new Map();
    for (const e of events) {
        const j = await impactOf(r.store.sql, e, around.get(e.service) ?? [e], attribution);
        const scope = { ...(e.kind === 'tool_definition' && e.tool ? { tool: e.tool } : {}), outcomes: FAILURE_OUTCOMES };
        impacts.set(e.id, j ? presentJudged(scope, j) : null);
    }
    // A tool_set event also says which tools came and went (from the stored sets, per service).
    const wanted = new Map();
    for (const e of events) {
        if (e.kind !== 'tool_set')
            continue;
        const set = wanted.get(e.service) ?? new Set();
        set.add(e.from).add(e.to);
        wanted.set(e.service, set);
    }
    const sets = new Map();
    for (const [service, versions] of wanted)
        sets.set(service, await toolSetNames(r.store.sql, service, [...versions]));
    return {
        changes: events.map((e) => {
            const base = { ...e, time: isoTime(e.timeMs), impact: impacts.get(e.id) ?? null };
            const from = e.kind === 'tool_set' ? sets.get(e.service)?.get(e.from) : undefined;
            const to = e.kind === 'tool_set' ? sets.get(e.service)?.get(e.to) : undefined;
            if (!from || !to)
                return base;
            return { ...base, added: to.filter((n) => !from.includes(n)), removed: from.filter((n) => !to.includes(n)) };
        }),
    };
}
/** undefined when the reader may not see the service, or the tool has no stored version. */
export async function toolDetail(r, service, tool) {
    if (!r.view.sees(service))
        return undefined;
    const stored = await toolVersions(r.store.sql, service, tool);
    if (stored.length === 0)
        return undefined;
    const counts = await valueCounts(r.store.sql, { kind: 'tool_definition', service, tool });
    const byVersion = new Map();
    for (const c of counts)
        byVersion.set(c.value, [...(byVersion.get(c.value) ?? []), c]);
    const versions = stored.map((v, i) => {
        const prev = i > 0 ? stored[i - 1] : undefined;
        const diff = prev ? diffDefinitions(toDef(prev.definition), toDef(v.definition)) : null;
        return {
            version: v.version,
            firstSeen: isoTime(v.firstSeenMs),
            lastSeen: isoTime(v.lastSeenMs),
            calls: v.calls,
            rates: outcomeRates(byVersion.get(v.version) ?? []),
            definition: v.definition,
            changes: diff ? diff.map((c) => ({ ...c, text: describeChange(c) })) : null,
        };
    });
    return { service, tool, versions };
}
export function outcomeRates(rows) {
    const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
    let total = 0;
    let failed = 0;
    for (const r of rows) {
        const o = r.outcome;
        if (!(o in counts))
            continue;
        counts[o] += r.count;
        total += r.count;
        if (isFailure(o))
            failed += r.count;
    }
    const checked = total - counts.unvalidated;
    return { counts, total, checked, failed, errorRate: checked > 0 ? failed / checked : null };
}
/** Providers side by side (GET /api/stats?by=provider): per service and provider, calls by outcome and the error rate. */
export async function providerStats(r, q) {
    const rows = await valueCounts(r.store.sql, {
        kind: 'provider',
        sinceMs: q.sinceMs,
        ...(q.service ? { service: q.service } : {}),
        ...storeFilter(r.view),
    });
    const groups = new Map();
    for (const row of rows) {
        const k = `${row.service}\u0000${row.value}`;
        const g = groups.get(k) ?? { service: row.service, provider: row.value, rows: [] };
        g.rows.push(row);
        groups.set(k, g);
    }
    return [...groups.values()]
        .map((g) => ({ service: g.service, provider: g.provider, rates: outcomeRates(g.rows) }))
        .sort((a, b) => a.service.localeCompare(b.service) || b.rates.total - a.rates.total);
}
const toDef = (d) => ({
    name: d.name,
    description: d.description,
    ...(d.parameters === null ? {} : { parameters: d.parameters }),
});
//# sourceMappingURL=changes.js.map