/**
 * What one batch says about the things that can change under an agent, read from its model spans:
 * per service the model, the provider, the set of tools offered and each tool's definition version.
 * Pure: facts and counted calls in; out the definition versions seen (with the calls attributed to
 * each — the version the call's own request offered) and, per (service, kind, key), the values in
 * time order with repeats collapsed — the transitions the store turns into change events.
 */
import { countedTool, OUTCOMES, type CheckedCall, type OutcomeName, type SpanFacts, type ToolDef } from '../model.js';
import { storableText } from '../store/storable-text.js';
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
  /** This batch's calls of it, per provider (observeBatch's own bookkeeping). */
  groups: Map<string, CountGroup>;
}

export interface ToolSetSeen {
  service: string;
  version: string;
  /** The distinct names, sorted. */
  names: string[];
}

/**
 * Calls counted per minute under the definition version their own request offered and the provider
 * that served their model span: what per-version and per-provider error rates are read from.
 */
export interface VersionCount {
  minute: number;
  service: string;
  /** As counted (`_unknown` for an invented name), so it joins call_minutes. */
  tool: string;
  /** '' when the request offered no definition of it. */
  version: string;
  /** '' when the span named none. */
  provider: string;
  outcome: OutcomeName;
  count: number;
}

export interface BatchObservation {
  versions: VersionSeen[];
  counts: VersionCount[];
  toolSets: ToolSetSeen[];
  /** Per (service, kind, key), in time order, each value only where it differs from the one before. */
  sightings: Sighting[];
  /** Some (service, kind, key) has more than one sighting (a transition inside the batch). */
  repeatedKeys: boolean;
}

export interface ObserveLimits {
  /** Longest service, tool, model or provider name kept (longer ones are clipped). */
  maxName: number;
  /** Tools per request considered; a request offering more is read for its first this many. */
  maxToolsPerRequest: number;
}

/** Clipped and storable (storable-text.ts): a NUL in a service or tool name must not fail the batch on PostgreSQL. */
const clipTo = (s: string, n: number) => storableText(s.length > n ? s.slice(0, n) : s);

export function observeBatch(
  facts: readonly SpanFacts[],
  calls: readonly CheckedCall[],
  limits: ObserveLimits,
): BatchObservation {
  // The spans of a batch name a few services, models and providers over and over: each clipped once.
  const clipped = new Map<string, string>();
  let lastIn = '';
  let lastOut = '';
  const clip = (s: string) => {
    if (s === lastIn) return lastOut;
    let c = clipped.get(s);
    if (c === undefined) clipped.set(s, (c = clipTo(s, limits.maxName)));
    lastIn = s;
    lastOut = c;
    return c;
  };
  /** A key sighted with two values in this batch: only then are its sightings sorted into transitions. */
  let mixed = false;
  const versions = new Map<string, VersionSeen>();
  const toolSets = new Map<string, ToolSetSeen>();
  const raw: Sighting[] = [];
  /** Each run's first sighting (its earliest time once the run is flushed). */
  const firsts: Sighting[] = [];
  /** traceId → spanId → the offered tools by name and the provider, for attributing calls to them. */
  const bySpan = new Map<string, Map<string, SpanInfo>>();
  const slots = new Map<string, Map<string, ProviderSlot>>();
  // Consecutive spans of one run share their info object (most of a batch is one run).
  let lastInfo: SpanInfo | undefined;
  const remember = (f: SpanFacts, service: string, provider: string, byName?: Map<string, VersionSeen>) => {
    let info = lastInfo;
    if (!info || info.byName !== byName || info.slot.service !== service || info.slot.provider !== provider) {
      let of = slots.get(service);
      if (!of) slots.set(service, (of = new Map()));
      let slot = of.get(provider);
      if (!slot) of.set(provider, (slot = { service, provider, byTool: new Map() }));
      lastInfo = info = byName ? { byName, slot } : { slot };
    }
    let spans = bySpan.get(f.traceId);
    if (!spans) bySpan.set(f.traceId, (spans = new Map()));
    spans.set(f.spanId, info);
  };
  /** Per service, per kind the run of one value, sighted at its earliest and latest time (as below). */
  const valueRuns = new Map<string, Partial<Record<ChangeKind, { value: string; first: Sighting; last: Sighting }>>>();
  const sight = (service: string, kind: ChangeKind, value: string, t: number) => {
    let of = valueRuns.get(service);
    if (!of) valueRuns.set(service, (of = {}));
    const run = of[kind];
    if (run && run.value === value) {
      if (t < run.first.timeMs) run.first.timeMs = t;
      if (t > run.last.timeMs) run.last.timeMs = t;
      return;
    }
    if (run) mixed = true;
    const first: Sighting = { service, kind, key: '', value, timeMs: t };
    const last: Sighting = { service, kind, key: '', value, timeMs: t };
    raw.push(first, last);
    firsts.push(first);
    of[kind] = { value, first, last };
  };
  const runs = new Map<string, DefinitionsRun>();
  for (const f of facts) {
    const service = clip(f.service);
    const t = Math.floor(f.startTimeMs);
    // Instructions are on the model span, or (Microsoft Agent Framework) on the agent span above it.
    if (f.promptVersion) sight(service, 'prompt', f.promptVersion, t);
    if (f.role !== 'model') continue;
    if (f.model) sight(service, 'model', clip(f.model), t);
    const provider = f.provider ? clip(f.provider) : undefined;
    if (provider) sight(service, 'provider', provider, t);
    if (!f.offered) {
      if (provider) remember(f, service, provider);
      continue;
    }
    const offered =
      f.offered.length > limits.maxToolsPerRequest ? f.offered.slice(0, limits.maxToolsPerRequest) : f.offered;
    // The requests of one agent offer the same (shared, frozen) definitions one after another: such
    // a run is read once and sighted at its earliest and latest time, not once per request.
    const prev = runs.get(service);
    if (prev && sameDefs(prev.offered, offered)) {
      // Widened once when the run ends (flushRun), not per request and tool.
      if (t < prev.tMin) prev.tMin = t;
      if (t > prev.tMax) prev.tMax = t;
      remember(f, service, provider ?? '', prev.byName);
      continue;
    }
    if (prev) {
      flushRun(prev);
      mixed = true;
    }
    const setVersion = toolSetVersion(offered);
    if (!toolSets.has(`${service}\u0000${setVersion}`)) {
      const names = [...new Set(offered.map((d) => clip(d.name)))].sort();
      toolSets.set(`${service}\u0000${setVersion}`, { service, version: setVersion, names });
    }
    const byName = new Map<string, VersionSeen>();
    const sighted: Omit<Sighting, 'timeMs'>[] = [{ service, kind: 'tool_set', key: '', value: setVersion }];
    for (const def of offered) {
      const v = seen(versions, service, clip(def.name), def, t);
      sighted.push({ service, kind: 'tool_definition', key: v.tool, value: v.version });
      // One request offering a name twice: two sightings of one key.
      if (byName.has(def.name)) mixed = true;
      byName.set(def.name, v);
    }
    // Literals of one shape, not spreads: these are written again when the run is flushed.
    const first = sighted.map(
      (x): Sighting => ({ service: x.service, kind: x.kind, key: x.key, value: x.value, timeMs: t }),
    );
    const last = sighted.map(
      (x): Sighting => ({ service: x.service, kind: x.kind, key: x.key, value: x.value, timeMs: t }),
    );
    raw.push(...first, ...last);
    firsts.push(...first);
    runs.set(service, { offered, byName, first, last, tMin: t, tMax: t });
    remember(f, service, provider ?? '', byName);
  }
  for (const r of runs.values()) flushRun(r);
  // Calls per group (service, tool, version, provider), then per minute and outcome under a number:
  // a few map lookups per call, no key built.
  const groups: CountGroup[] = [];
  for (const c of calls) {
    if (bySpan.size === 0) break;
    const info = bySpan.get(c.traceId)?.get(c.spanId);
    if (!info) continue;
    const outcome = c.outcome.outcome;
    const v = info.byName?.get(c.name);
    let group: CountGroup | undefined;
    if (v) {
      v.calls++;
      group = v.groups.get(info.slot.provider);
      if (!group) {
        group = {
          service: v.service,
          tool: v.tool,
          version: v.version,
          provider: info.slot.provider,
          counts: new Map(),
        };
        v.groups.set(info.slot.provider, group);
        groups.push(group);
      }
    } else if (info.slot.provider !== '') {
      // By the name as stored: two long names equal once clipped are one group (one row per key).
      const tool = clip(countedTool(outcome, c.name));
      group = info.slot.byTool.get(tool);
      if (!group) {
        const { service, provider } = info.slot;
        group = { service, tool, version: '', provider, counts: new Map() };
        info.slot.byTool.set(tool, group);
        groups.push(group);
      }
    } else continue;
    const k = Math.floor(c.timeMs / 60_000) * 8 + OUTCOME_INDEX[outcome];
    group.counts.set(k, (group.counts.get(k) ?? 0) + 1);
  }
  const counts: VersionCount[] = [];
  for (const g of groups)
    for (const [k, count] of g.counts) {
      const { service, tool, version, provider } = g;
      counts.push({
        minute: Math.floor(k / 8) * 60_000,
        service,
        tool,
        version,
        provider,
        outcome: OUTCOME_NAMES[k % 8]!,
        count,
      });
    }
  return {
    versions: [...versions.values()],
    counts,
    toolSets: [...toolSets.values()],
    // One value per key (the steady state): its earliest sighting is its run's first, no sort needed.
    sightings: mixed ? transitions(raw) : firsts,
    repeatedKeys: mixed,
  };
}

interface ProviderSlot {
  service: string;
  /** '' when the span named none. */
  provider: string;
  /** Calls offered no definition, by the tool they are counted under. */
  byTool: Map<string, CountGroup>;
}

interface SpanInfo {
  byName?: Map<string, VersionSeen>;
  slot: ProviderSlot;
}

interface CountGroup {
  service: string;
  tool: string;
  version: string;
  provider: string;
  /** minute number × 8 + outcome index → calls. */
  counts: Map<number, number>;
}

const OUTCOME_NAMES: readonly OutcomeName[] = OUTCOMES;
const OUTCOME_INDEX = Object.fromEntries(OUTCOMES.map((o, i) => [o, i])) as Record<OutcomeName, number>;

interface DefinitionsRun {
  offered: readonly ToolDef[];
  byName: Map<string, VersionSeen>;
  first: Sighting[];
  last: Sighting[];
  /** The earliest and latest request of the run. */
  tMin: number;
  tMax: number;
}

/** A run's earliest and latest time onto its versions and sightings. */
function flushRun(r: DefinitionsRun): void {
  for (const v of r.byName.values()) {
    if (r.tMin < v.firstMs) v.firstMs = r.tMin;
    if (r.tMax > v.lastMs) v.lastMs = r.tMax;
  }
  if (r.tMin < r.first[0]!.timeMs) for (const x of r.first) x.timeMs = r.tMin;
  if (r.tMax > r.last[0]!.timeMs) for (const x of r.last) x.timeMs = r.tMax;
}

/** The same definitions: most often the very same (shared, parsed once) array. */
function sameDefs(a: readonly ToolDef[], b: readonly ToolDef[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function seen(versions: Map<string, VersionSeen>, service: string, tool: string, def: ToolDef, t: number): VersionSeen {
  const version = definitionVersion(def);
  const k = `${service}\u0000${tool}\u0000${version}`;
  let v = versions.get(k);
  if (!v) {
    const definition = canonicalText(def);
    v = { service, tool, version, definition, firstMs: t, lastMs: t, calls: 0, groups: new Map() };
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
