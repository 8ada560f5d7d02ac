/**
 * What changed, as a reader may see it: change events of the services its token sees, and one
 * tool's definition versions with a readable diff from each version to the next.
 */
import { listChanges, toolSetNames, toolVersions, type ChangeEvent } from '../changes/store.js';
import type { ChangeKind } from '../changes/observe.js';
import { describeChange, diffDefinitions, type SchemaChange } from '../tools/schema-diff.js';
import { isoTime } from '../util/iso-time.js';
import { storeFilter } from '../util/service-view.js';
import type { Reader } from './reader.js';

export interface ChangesQuery {
  service?: string;
  kind?: ChangeKind;
  sinceMs?: number;
  limit: number;
}

export async function changesList(
  r: Reader,
  q: ChangesQuery,
): Promise<{ changes: (ChangeEvent & { time: string | null; added?: string[]; removed?: string[] })[] }> {
  const events = await listChanges(r.store.sql, { ...q, ...storeFilter(r.view) });
  // A tool_set event also says which tools came and went (from the stored sets, per service).
  const wanted = new Map<string, Set<string>>();
  for (const e of events) {
    if (e.kind !== 'tool_set') continue;
    const set = wanted.get(e.service) ?? new Set<string>();
    set.add(e.from).add(e.to);
    wanted.set(e.service, set);
  }
  const sets = new Map<string, Map<string, string[]>>();
  for (const [service, versions] of wanted) sets.set(service, await toolSetNames(r.store.sql, service, [...versions]));
  return {
    changes: events.map((e) => {
      const base = { ...e, time: isoTime(e.timeMs) };
      const from = e.kind === 'tool_set' ? sets.get(e.service)?.get(e.from) : undefined;
      const to = e.kind === 'tool_set' ? sets.get(e.service)?.get(e.to) : undefined;
      if (!from || !to) return base;
      return { ...base, added: to.filter((n) => !from.includes(n)), removed: from.filter((n) => !to.includes(n)) };
    }),
  };
}

export interface ToolVersionView {
  version: string;
  firstSeen: string | null;
  lastSeen: string | null;
  calls: number;
  definition: { name: string; description: string; parameters: unknown };
  /** From the version before (null for the first): each change, and the same as a sentence. */
  changes: (SchemaChange & { text: string })[] | null;
}

/** undefined when the reader may not see the service, or the tool has no stored version. */
export async function toolDetail(
  r: Reader,
  service: string,
  tool: string,
): Promise<{ service: string; tool: string; versions: ToolVersionView[] } | undefined> {
  if (!r.view.sees(service)) return undefined;
  const stored = await toolVersions(r.store.sql, service, tool);
  if (stored.length === 0) return undefined;
  const versions = stored.map((v, i) => {
    const prev = i > 0 ? stored[i - 1] : undefined;
    const diff = prev ? diffDefinitions(toDef(prev.definition), toDef(v.definition)) : null;
    return {
      version: v.version,
      firstSeen: isoTime(v.firstSeenMs),
      lastSeen: isoTime(v.lastSeenMs),
      calls: v.calls,
      definition: v.definition,
      changes: diff ? diff.map((c) => ({ ...c, text: describeChange(c) })) : null,
    };
  });
  return { service, tool, versions };
}

const toDef = (d: { name: string; description: string; parameters: unknown }) => ({
  name: d.name,
  description: d.description,
  ...(d.parameters === null ? {} : { parameters: d.parameters }),
});
