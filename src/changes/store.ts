/**
 * Definition versions and change events in the store (migrations 012, 013): what a batch writes
 * (src/changes/write.ts) and the reads. The first value ever seen for a key is the baseline, not a change.
 */
import { num } from '../store/rows.js';
import { servicesMatch, type Sql } from '../store/sql.js';
import type { ChangeKind } from './observe.js';

export { changesExtension } from './write.js';

export interface ChangeEvent {
  id: number;
  timeMs: number;
  service: string;
  kind: ChangeKind;
  tool?: string;
  from: string;
  to: string;
}

export interface ChangeFilter {
  /** Globs of the services the reader may see (src/util/service-view.ts); absent = every service. */
  services?: readonly string[];
  service?: string;
  kind?: ChangeKind;
  sinceMs?: number;
  limit: number;
}

/** Change events, newest first, of the services the reader may see. */
export async function listChanges(sql: Sql, f: ChangeFilter): Promise<ChangeEvent[]> {
  const params: unknown[] = [];
  const param = (v: unknown) => (params.push(v), '?');
  const where = f.services ? [servicesMatch(sql.dialect, 'service', f.services, param)] : ['1 = 1'];
  if (f.service !== undefined) where.push(`service = ${param(f.service)}`);
  if (f.kind !== undefined) where.push(`kind = ${param(f.kind)}`);
  if (f.sinceMs !== undefined) where.push(`time_ms >= ${param(f.sinceMs)}`);
  const rows = await sql.all(
    `SELECT id, time_ms, service, kind, tool, from_value, to_value FROM change_events
     WHERE ${where.join(' AND ')} ORDER BY time_ms DESC, id DESC LIMIT ${param(f.limit)}`,
    params,
  );
  return rows.map((r) => ({
    id: num(r['id']),
    timeMs: num(r['time_ms']),
    service: String(r['service']),
    kind: String(r['kind']) as ChangeKind,
    ...(r['tool'] !== '' ? { tool: String(r['tool']) } : {}),
    from: String(r['from_value']),
    to: String(r['to_value']),
  }));
}

export interface StoredVersion {
  version: string;
  definition: { name: string; description: string; parameters: unknown };
  firstSeenMs: number;
  lastSeenMs: number;
  calls: number;
}

/** The names of a service's tool sets, by version (those not stored are absent). */
export async function toolSetNames(
  sql: Sql,
  service: string,
  versions: readonly string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (versions.length === 0) return out;
  const rows = await sql.all(
    `SELECT version, names FROM service_tool_sets WHERE service = ? AND version IN (${versions.map(() => '?').join(', ')})`,
    [service, ...versions],
  );
  for (const r of rows) out.set(String(r['version']), JSON.parse(String(r['names'])));
  return out;
}

/** A tool's definition versions, oldest first. */
export async function toolVersions(sql: Sql, service: string, tool: string): Promise<StoredVersion[]> {
  const rows = await sql.all(
    `SELECT v.version, d.definition, v.first_seen, v.last_seen, v.calls
     FROM tool_versions v JOIN tool_definitions d ON d.service = v.service AND d.tool = v.tool AND d.version = v.version
     WHERE v.service = ? AND v.tool = ? ORDER BY v.first_seen, v.version`,
    [service, tool],
  );
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
export async function pruneChanges(sql: Sql, keepPerService: number, beforeMs: number): Promise<number> {
  return sql.tx(async (tx) => {
    const ranked = `SELECT id FROM (
           SELECT id, ROW_NUMBER() OVER (PARTITION BY service ORDER BY time_ms DESC, id DESC) AS rn FROM change_events
         ) ranked WHERE rn > ?`;
    // What goes is still counted: toolwatch_tool_definition_changes_total must never go down.
    await tx.run(
      `INSERT INTO change_counts_pruned (service, kind, pruned)
       SELECT service, kind, COUNT(*) FROM change_events WHERE id IN (${ranked}) GROUP BY service, kind
       ON CONFLICT (service, kind) DO UPDATE SET pruned = change_counts_pruned.pruned + excluded.pruned`,
      [keepPerService],
    );
    let removed = await tx.run(`DELETE FROM change_events WHERE id IN (${ranked})`, [keepPerService]);
    removed += await tx.run('DELETE FROM tool_versions WHERE last_seen < ?', [beforeMs]);
    // Then the definitions of the versions gone (after them: src/changes/write.ts writes in the same
    // order), each part of its version: not counted again.
    await tx.run(
      `DELETE FROM tool_definitions WHERE NOT EXISTS (
         SELECT 1 FROM tool_versions v
         WHERE v.service = tool_definitions.service AND v.tool = tool_definitions.tool AND v.version = tool_definitions.version
       )`,
    );
    removed += await tx.run('DELETE FROM version_minutes WHERE minute < ?', [beforeMs]);
    // A tool set no kept event names and that is not current is no longer needed.
    removed += await tx.run(
      `DELETE FROM service_tool_sets WHERE NOT EXISTS (
         SELECT 1 FROM change_events e WHERE e.service = service_tool_sets.service AND e.kind = 'tool_set'
           AND (e.from_value = service_tool_sets.version OR e.to_value = service_tool_sets.version)
       ) AND NOT EXISTS (
         SELECT 1 FROM change_state c WHERE c.service = service_tool_sets.service AND c.kind = 'tool_set' AND c.value = service_tool_sets.version
       )`,
    );
    return removed;
  });
}

export interface ValueCount {
  service: string;
  value: string;
  tool: string;
  outcome: string;
  count: number;
}

/** Calls per definition version or provider (version_minutes), by service, value, tool and outcome. */
export async function valueCounts(
  sql: Sql,
  f: {
    kind: 'tool_definition' | 'provider';
    services?: readonly string[];
    service?: string;
    tool?: string;
    sinceMs?: number;
    untilMs?: number;
  },
): Promise<ValueCount[]> {
  const params: unknown[] = [];
  const param = (v: unknown) => (params.push(v), '?');
  // Calls offered no definition (or from a span that named no provider) have '' in that column.
  const column = f.kind === 'tool_definition' ? 'version' : 'provider';
  const where = [`${column} <> ''`];
  if (f.services) where.push(servicesMatch(sql.dialect, 'service', f.services, param));
  if (f.service !== undefined) where.push(`service = ${param(f.service)}`);
  if (f.tool !== undefined) where.push(`tool = ${param(f.tool)}`);
  if (f.sinceMs !== undefined) where.push(`minute >= ${param(f.sinceMs)}`);
  if (f.untilMs !== undefined) where.push(`minute < ${param(f.untilMs)}`);
  const rows = await sql.all(
    `SELECT service, ${column} AS value, tool, outcome, SUM(count) AS n FROM version_minutes WHERE ${where.join(' AND ')}
     GROUP BY service, ${column}, tool, outcome`,
    params,
  );
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
export async function definitionChangeCounts(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql.all(
    `SELECT service, SUM(n) AS n FROM (
       SELECT service, COUNT(*) AS n FROM change_events WHERE kind = 'tool_definition' GROUP BY service
       UNION ALL
       SELECT service, pruned AS n FROM change_counts_pruned WHERE kind = 'tool_definition'
     ) counted GROUP BY service`,
  );
  return Object.fromEntries(rows.map((r) => [String(r['service']), num(r['n'])]));
}
