/**
 * Definition versions and change events in the store, written once for both engines inside the
 * ingest batch's transaction (write-only statements, so the same extension runs in SQLite's
 * synchronous transaction and PostgreSQL's asynchronous one):
 * - versions are upserted: first/last seen widened, calls added — a resent span adds no call,
 *   because calls come from the pipeline's deduplicated count, and seeing a time twice changes nothing;
 * - each transition moves the stored state (only when it holds another value and is no newer than the
 *   sighting, so a late span of the old value is no change back), and the state's trigger (migration
 *   013) writes the event from the old and new rows: one statement per sighting. The event's unique
 *   key is (service, kind, tool, from, from's since, to): a replica that raced another through the
 *   same switch finds the state moved already, or at worst hits that key, and writes nothing.
 * The first value ever seen for a key is the baseline, not a change.
 */
import { num } from '../store/rows.js';
import { servicesMatch } from '../store/sql.js';
export function changesExtension(dialect, obs) {
    if (obs.versions.length === 0 && obs.sightings.length === 0 && obs.counts.length === 0)
        return undefined;
    const toolSets = [...obs.toolSets].sort((a, b) => a.service !== b.service
        ? a.service < b.service
            ? -1
            : 1
        : a.version < b.version
            ? -1
            : a.version > b.version
                ? 1
                : 0);
    const least = dialect === 'postgres' ? 'LEAST' : 'MIN';
    const greatest = dialect === 'postgres' ? 'GREATEST' : 'MAX';
    // One lock order for concurrent writers: versions sorted by key.
    const versions = [...obs.versions].sort((a, b) => a.service !== b.service
        ? a.service < b.service
            ? -1
            : 1
        : a.tool !== b.tool
            ? a.tool < b.tool
                ? -1
                : 1
            : a.version < b.version
                ? -1
                : a.version > b.version
                    ? 1
                    : 0);
    const counts = [...obs.counts].sort((a, b) => {
        const x = countKey(a);
        const y = countKey(b);
        return x < y ? -1 : x > y ? 1 : 0;
    });
    return (tx) => {
        for (const v of versions) {
            tx.run(`INSERT INTO tool_versions (service, tool, version, definition, first_seen, last_seen, calls)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (service, tool, version) DO UPDATE SET
           first_seen = ${least}(tool_versions.first_seen, excluded.first_seen),
           last_seen = ${greatest}(tool_versions.last_seen, excluded.last_seen),
           calls = tool_versions.calls + excluded.calls`, [v.service, v.tool, v.version, v.definition, v.firstMs, v.lastMs, v.calls]);
        }
        for (const c of counts) {
            tx.run(`INSERT INTO version_minutes (minute, service, tool, version, provider, outcome, count) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (minute, service, tool, version, provider, outcome) DO UPDATE SET count = version_minutes.count + excluded.count`, [c.minute, c.service, c.tool, c.version, c.provider, c.outcome, c.count]);
        }
        for (const t of toolSets) {
            tx.run('INSERT INTO service_tool_sets (service, version, names) VALUES (?, ?, ?) ON CONFLICT (service, version) DO NOTHING', [t.service, t.version, JSON.stringify(t.names)]);
        }
        // The event is written by the trigger on change_state (migration 013) when the state moves.
        for (const s of obs.sightings) {
            tx.run(`INSERT INTO change_state (service, kind, key, value, since) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (service, kind, key) DO UPDATE SET value = excluded.value, since = excluded.since
         WHERE change_state.value <> excluded.value AND change_state.since <= excluded.since`, [s.service, s.kind, s.key, s.value, s.timeMs]);
        }
    };
}
const countKey = (c) => `${c.minute}\u0000${c.service}\u0000${c.tool}\u0000${c.version}\u0000${c.provider}\u0000${c.outcome}`;
/** Change events, newest first, of the services the reader may see. */
export async function listChanges(sql, f) {
    const params = [];
    const param = (v) => (params.push(v), '?');
    const where = f.services ? [servicesMatch(sql.dialect, 'service', f.services, param)] : ['1 = 1'];
    if (f.service !== undefined)
        where.push(`service = ${param(f.service)}`);
    if (f.kind !== undefined)
        where.push(`kind = ${param(f.kind)}`);
    if (f.sinceMs !== undefined)
        where.push(`time_ms >= ${param(f.sinceMs)}`);
    const rows = await sql.all(`SELECT id, time_ms, service, kind, tool, from_value, to_value FROM change_events
     WHERE ${where.join(' AND ')} ORDER BY time_ms DESC, id DESC LIMIT ${param(f.limit)}`, params);
    return rows.map((r) => ({
        id: num(r['id']),
        timeMs: num(r['time_ms']),
        service: String(r['service']),
        kind: String(r['kind']),
        ...(r['tool'] !== '' ? { tool: String(r['tool']) } : {}),
        from: String(r['from_value']),
        to: String(r['to_value']),
    }));
}
/** The names of a service's tool sets, by version (those not stored are absent). */
export async function toolSetNames(sql, service, versions) {
    const out = new Map();
    if (versions.length === 0)
        return out;
    const rows = await sql.all(`SELECT version, names FROM service_tool_sets WHERE service = ? AND version IN (${versions.map(() => '?').join(', ')})`, [service, ...versions]);
    for (const r of rows)
        out.set(String(r['version']), JSON.parse(String(r['names'])));
    return out;
}
/** A tool's definition versions, oldest first. */
export async function toolVersions(sql, service, tool) {
    const rows = await sql.all(`SELECT version, definition, first_seen, last_seen, calls FROM tool_versions
     WHERE service = ? AND tool = ? ORDER BY first_seen, version`, [service, tool]);
    return rows.map((r) => ({
        version: String(r['version']),
        definition: JSON.parse(String(r['definition'])),
        firstSeenMs: num(r['first_seen']),
        lastSeenMs: num(r['last_seen']),
        calls: num(r['calls']),
    }));
}
/**
 * Bounded history: per service the newest `keepPerService` events stay, and versions not seen since
 * `beforeMs` go (the current one is seen with every request, so it stays).
 */
export async function pruneChanges(sql, keepPerService, beforeMs) {
    return sql.tx(async (tx) => {
        const ranked = `SELECT id FROM (
           SELECT id, ROW_NUMBER() OVER (PARTITION BY service ORDER BY time_ms DESC, id DESC) AS rn FROM change_events
         ) ranked WHERE rn > ?`;
        // What goes is still counted: toolwatch_tool_definition_changes_total must never go down.
        await tx.run(`INSERT INTO change_counts_pruned (service, kind, pruned)
       SELECT service, kind, COUNT(*) FROM change_events WHERE id IN (${ranked}) GROUP BY service, kind
       ON CONFLICT (service, kind) DO UPDATE SET pruned = change_counts_pruned.pruned + excluded.pruned`, [keepPerService]);
        let removed = await tx.run(`DELETE FROM change_events WHERE id IN (${ranked})`, [keepPerService]);
        removed += await tx.run('DELETE FROM tool_versions WHERE last_seen < ?', [beforeMs]);
        removed += await tx.run('DELETE FROM version_minutes WHERE minute < ?', [beforeMs]);
        // A tool set no kept event names and that is not current is no longer needed.
        removed += await tx.run(`DELETE FROM service_tool_sets WHERE NOT EXISTS (
         SELECT 1 FROM change_events e WHERE e.service = service_tool_sets.service AND e.kind = 'tool_set'
           AND (e.from_value = service_tool_sets.version OR e.to_value = service_tool_sets.version)
       ) AND NOT EXISTS (
         SELECT 1 FROM change_state c WHERE c.service = service_tool_sets.service AND c.kind = 'tool_set' AND c.value = service_tool_sets.version
       )`);
        return removed;
    });
}
/** Calls per definition version or provider (version_minutes), by service, value, tool and outcome. */
export async function valueCounts(sql, f) {
    const params = [];
    const param = (v) => (params.push(v), '?');
    // Calls offered no definition (or from a span that named no provider) have '' in that column.
    const column = f.kind === 'tool_definition' ? 'version' : 'provider';
    const where = [`${column} <> ''`];
    if (f.services)
        where.push(servicesMatch(sql.dialect, 'service', f.services, param));
    if (f.service !== undefined)
        where.push(`service = ${param(f.service)}`);
    if (f.tool !== undefined)
        where.push(`tool = ${param(f.tool)}`);
    if (f.sinceMs !== undefined)
        where.push(`minute >= ${param(f.sinceMs)}`);
    if (f.untilMs !== undefined)
        where.push(`minute < ${param(f.untilMs)}`);
    const rows = await sql.all(`SELECT service, ${column} AS value, tool, outcome, SUM(count) AS n FROM version_minutes WHERE ${where.join(' AND ')}
     GROUP BY service, ${column}, tool, outcome`, params);
    return rows.map((r) => ({
        service: String(r['service']),
        value: String(r['value']),
        tool: String(r['tool']),
        outcome: String(r['outcome']),
        count: num(r['n']),
    }));
}
/**
 * Tool definition changes per service since the store began: the events kept plus those the bounded
 * history pruned (toolwatch_tool_definition_changes_total, read from the store at scrape time so every
 * replica reports the same exact count).
 */
export async function definitionChangeCounts(sql) {
    const rows = await sql.all(`SELECT service, SUM(n) AS n FROM (
       SELECT service, COUNT(*) AS n FROM change_events WHERE kind = 'tool_definition' GROUP BY service
       UNION ALL
       SELECT service, pruned AS n FROM change_counts_pruned WHERE kind = 'tool_definition'
     ) counted GROUP BY service`);
    return Object.fromEntries(rows.map((r) => [String(r['service']), num(r['n'])]));
}
//# sourceMappingURL=store.js.map