/**
 * What one batch says about the things that can change under an agent, read from its model spans:
 * per service the model, the provider, the set of tools offered and each tool's definition version.
 * Pure: facts and counted calls in; out the definition versions seen (with the calls attributed to
 * each — the version the call's own request offered) and, per (service, kind, key), the values in
 * time order with repeats collapsed — the transitions the store turns into change events.
 */
import type { CheckedCall, SpanFacts, ToolDef } from '../model.js';
import { canonicalText, definitionVersion, toolSetVersion } from '../tools/definition-hash.js';

export const CHANGE_KINDS = ['tool_definition', 'tool_set', 'prompt', 'model', 'provider'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** A value seen at a time: the key is the tool for tool_definition, '' for the other kinds. */
export interface Sighting {
  service: string;
  kind: ChangeKind;
  key: string;
  value: string;
  timeMs: number;
}

export interface VersionSeen {
  service: string;
  tool: string;
  version: string;
  /** The canonical definition's JSON text (what the diff is computed from). */
  definition: string;
  firstMs: number;
  lastMs: number;
  calls: number;
}

export interface ToolSetSeen {
  service: string;
  version: string;
  /** The distinct names, sorted. */
  names: string[];
}

export interface BatchObservation {
  versions: VersionSeen[];
  toolSets: ToolSetSeen[];
  /** Per (service, kind, key), in time order, each value only where it differs from the one before. */
  sightings: Sighting[];
}

export interface ObserveLimits {
  /** Longest service, tool, model or provider name kept (longer ones are clipped). */
  maxName: number;
  /** Tools per request considered; a request offering more is read for its first this many. */
  maxToolsPerRequest: number;
}

const clipTo = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);

export function observeBatch(
  facts: readonly SpanFacts[],
  calls: readonly CheckedCall[],
  limits: ObserveLimits,
): BatchObservation {
  const clip = (s: string) => clipTo(s, limits.maxName);
  const versions = new Map<string, VersionSeen>();
  const toolSets = new Map<string, ToolSetSeen>();
  const raw: Sighting[] = [];
  /** `traceId spanId` → the offered tools by name, for attributing calls to their version. */
  const offeredBySpan = new Map<string, Map<string, VersionSeen>>();
  for (const f of facts) {
    const service = clip(f.service);
    const t = Math.floor(f.startTimeMs);
    // Instructions are on the model span, or (Microsoft Agent Framework) on the agent span above it.
    if (f.promptVersion) raw.push({ service, kind: 'prompt', key: '', value: f.promptVersion, timeMs: t });
    if (f.role !== 'model') continue;
    if (f.model) raw.push({ service, kind: 'model', key: '', value: clip(f.model), timeMs: t });
    if (f.provider) raw.push({ service, kind: 'provider', key: '', value: clip(f.provider), timeMs: t });
    if (!f.offered) continue;
    const offered = f.offered.slice(0, limits.maxToolsPerRequest);
    const setVersion = toolSetVersion(offered);
    raw.push({ service, kind: 'tool_set', key: '', value: setVersion, timeMs: t });
    if (!toolSets.has(`${service}\u0000${setVersion}`)) {
      const names = [...new Set(offered.map((d) => clip(d.name)))].sort();
      toolSets.set(`${service}\u0000${setVersion}`, { service, version: setVersion, names });
    }
    const byName = new Map<string, VersionSeen>();
    for (const def of offered) {
      const v = seen(versions, service, clip(def.name), def, t);
      raw.push({ service, kind: 'tool_definition', key: v.tool, value: v.version, timeMs: t });
      byName.set(def.name, v);
    }
    offeredBySpan.set(`${f.traceId} ${f.spanId}`, byName);
  }
  for (const c of calls) {
    const v = offeredBySpan.get(`${c.traceId} ${c.spanId}`)?.get(c.name);
    if (v) v.calls++;
  }
  return { versions: [...versions.values()], toolSets: [...toolSets.values()], sightings: transitions(raw) };
}

function seen(versions: Map<string, VersionSeen>, service: string, tool: string, def: ToolDef, t: number): VersionSeen {
  const version = definitionVersion(def);
  const k = `${service}\u0000${tool}\u0000${version}`;
  let v = versions.get(k);
  if (!v) {
    const definition = canonicalText(def);
    v = { service, tool, version, definition, firstMs: t, lastMs: t, calls: 0 };
    versions.set(k, v);
  }
  if (t < v.firstMs) v.firstMs = t;
  if (t > v.lastMs) v.lastMs = t;
  return v;
}

/**
 * Per key, in time order, each value only where it differs from the one before. Most keys hold one
 * value all batch long: those give their earliest sighting without a sort.
 */
function transitions(raw: Sighting[]): Sighting[] {
  const byKey = new Map<string, Sighting[]>();
  for (const s of raw) {
    const k = `${s.service}\u0000${s.kind}\u0000${s.key}`;
    const list = byKey.get(k);
    if (list) list.push(s);
    else byKey.set(k, [s]);
  }
  const out: Sighting[] = [];
  for (const list of byKey.values()) {
    const first = list[0]!;
    if (list.every((s) => s.value === first.value)) {
      out.push(list.reduce((a, b) => (b.timeMs < a.timeMs ? b : a)));
      continue;
    }
    // Stable: equal times keep the order the spans came in.
    const sorted = list.map((s, i) => ({ s, i })).sort((a, b) => a.s.timeMs - b.s.timeMs || a.i - b.i);
    let prev: string | undefined;
    for (const { s } of sorted) {
      if (s.value === prev) continue;
      out.push(s);
      prev = s.value;
    }
  }
  return out;
}
