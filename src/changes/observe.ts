/**
 * What one batch says about the things that can change under an agent, read from its model spans:
 * per service the model, the provider, the set of tools offered and each tool's definition version.
 * Pure: facts and counted calls in; out the definition versions seen (with the calls attributed to
 * each — the version the call's own request offered) and, per (service, kind, key), the values in
 * time order with repeats collapsed — the transitions the store turns into change events.
 */
import { countedTool, OUTCOMES, type CheckedCall, type OutcomeName, type SpanFacts, type ToolDef } from '../model.js';
import { toolSetVersion } from '../tools/definition-hash.js';
import { clipTo, offerOf, sameDefs, type Offer } from './offers.js';
import { firstSightings, rawSightings, transitions, type Segment, type Sighting } from './sightings.js';

export { CHANGE_KINDS, type ChangeKind, type Sighting } from './sightings.js';

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

export function observeBatch(
  facts: readonly SpanFacts[],
  calls: readonly CheckedCall[],
  limits: ObserveLimits,
): BatchObservation {
  // The spans of a batch name a few services, models and providers over and over: each clipped once,
  // and each field remembers its last one (consecutive spans mostly repeat it).
  const clipped = new Map<string, string>();
  const clipper = () => {
    let lastIn = '';
    let lastOut = '';
    return (s: string) => {
      if (s === lastIn) return lastOut;
      let c = clipped.get(s);
      if (c === undefined) clipped.set(s, (c = clipTo(s, limits.maxName)));
      lastIn = s;
      lastOut = c;
      return c;
    };
  };
  const clip = clipper();
  const clipModel = clipper();
  const clipProvider = clipper();
  const clipTool = clipper();
  /** A key sighted with two values in this batch: only then are its sightings sorted into transitions. */
  let mixed = false;
  const versions = new Map<string, VersionSeen>();
  const toolSets = new Map<string, ToolSetSeen>();
  /** Every run of one value (or one definitions list) of a service, in the order they began. */
  const segments: Segment[] = [];
  /**
   * spanId → the index in `facts` of the latest span of that id remembered (the trace is checked);
   * infoAt[index] its run and provider, for attributing calls to them. A number per span, no object.
   */
  const bySpan = new Map<string, number>();
  const infoAt: (SpanInfo | undefined)[] = new Array(facts.length);
  /** A remembered span's index → an earlier one of the same span id (another trace's, or the span sent twice). */
  let earlier: Map<number, number> | undefined;
  const slots = new Map<string, Map<string, ProviderSlot>>();
  // Consecutive spans of one run share their info object (most of a batch is one run).
  let lastInfo: SpanInfo | undefined;
  const remember = (f: SpanFacts, at: number, service: string, provider: string, run?: DefinitionsRun) => {
    let info = lastInfo;
    if (!info || info.run !== run || info.slot.service !== service || info.slot.provider !== provider) {
      let of = slots.get(service);
      if (!of) slots.set(service, (of = new Map()));
      let slot = of.get(provider);
      if (!slot) of.set(provider, (slot = { service, provider, byTool: new Map() }));
      lastInfo = info = run ? { run, slot } : { slot };
    }
    infoAt[at] = info;
    const known = bySpan.size;
    bySpan.set(f.spanId, at);
    // One span id in two traces (or a span sent twice): chained, the later one found first. The
    // map did not grow, so an earlier span had the id: found by looking back (rare, unlike a lookup per span).
    if (bySpan.size === known)
      for (let j = at - 1; j >= 0; j--)
        if (infoAt[j] !== undefined && facts[j]!.spanId === f.spanId) {
          (earlier ??= new Map()).set(at, j);
          break;
        }
  };
  /** Per service the current run of each value kind, sighted at its earliest and latest time. */
  const valueRuns = new Map<string, ValueRuns>();
  let lastService = '';
  let lastRuns: ValueRuns = { prompt: undefined, model: undefined, provider: undefined };
  const runsOf = (service: string): ValueRuns => {
    if (service === lastService) return lastRuns;
    let of = valueRuns.get(service);
    if (!of) valueRuns.set(service, (of = { prompt: undefined, model: undefined, provider: undefined }));
    lastService = service;
    lastRuns = of;
    return of;
  };
  /** The run of `value` in `run` widened to t, or (another value) a new run begun: what the kind's slot holds next. */
  const sight = (run: Segment | undefined, service: string, kind: ValueKind, value: string, t: number): Segment => {
    if (run && run.value === value) {
      if (t < run.tMin) run.tMin = t;
      else if (t > run.tMax) run.tMax = t;
      return run;
    }
    if (run) mixed = true;
    const seg: Segment = { service, kind, value, tMin: t, tMax: t };
    segments.push(seg);
    return seg;
  };
  const runs = new Map<string, DefinitionsRun>();
  for (let at = 0; at < facts.length; at++) {
    const f = facts[at]!;
    // Instructions are on the model span, or (Microsoft Agent Framework) on the agent span above it.
    const promptVersion = f.promptVersion;
    const isModel = f.role === 'model';
    // Most spans of a batch (tools, agents, chains) say nothing of what can change: left at once.
    if (!isModel && !promptVersion) continue;
    const service = clip(f.service);
    const t = Math.floor(f.startTimeMs);
    if (promptVersion) {
      const of = runsOf(service);
      of.prompt = sight(of.prompt, service, 'prompt', promptVersion, t);
    }
    if (!isModel) continue;
    const model = f.model;
    const providerName = f.provider;
    const of = runsOf(service);
    if (model) of.model = sight(of.model, service, 'model', clipModel(model), t);
    const provider = providerName ? clipProvider(providerName) : undefined;
    if (provider) of.provider = sight(of.provider, service, 'provider', provider, t);
    const offeredAll = f.offered;
    if (!offeredAll) {
      if (provider) remember(f, at, service, provider);
      continue;
    }
    const offered =
      offeredAll.length > limits.maxToolsPerRequest ? offeredAll.slice(0, limits.maxToolsPerRequest) : offeredAll;
    // The requests of one agent offer the same (shared, frozen) definitions one after another: such
    // a run is read once and sighted at its earliest and latest time, not once per request.
    const prev = runs.get(service);
    if (prev && sameDefs(prev.offered, offered)) {
      if (t < prev.seg.tMin) prev.seg.tMin = t;
      if (t > prev.seg.tMax) prev.seg.tMax = t;
      remember(f, at, service, provider ?? '', prev);
      continue;
    }
    if (prev) {
      flushRun(prev);
      mixed = true;
    }
    const offer = offered.length > 0 ? offerOf(service, offered, limits.maxName) : emptyOffer(service);
    if (!toolSets.has(offer.setKey))
      toolSets.set(offer.setKey, { service, version: offer.setVersion, names: offer.names });
    const seen: VersionSeen[] = [];
    for (const d of offer.byDef) {
      let v = versions.get(d.key);
      if (!v) {
        v = {
          service,
          tool: d.tool,
          version: d.version,
          definition: d.definition,
          firstMs: t,
          lastMs: t,
          calls: 0,
          groups: new Map(),
        };
        versions.set(d.key, v);
      }
      seen.push(v);
    }
    // One request offering a name twice: two sightings of one key.
    if (offer.repeatsName) mixed = true;
    const seg: Segment = { service, kind: 'tool_set', value: offer.setVersion, offer, tMin: t, tMax: t };
    segments.push(seg);
    const run: DefinitionsRun = { offered, offer, seen, seg };
    runs.set(service, run);
    remember(f, at, service, provider ?? '', run);
  }
  for (const r of runs.values()) flushRun(r);
  // Calls per group (service, tool, version, provider), then per minute and outcome under a number:
  // a few map lookups per call, no key built.
  const groups: CountGroup[] = [];
  for (const c of calls) {
    if (bySpan.size === 0) break;
    let at = bySpan.get(c.spanId);
    while (at !== undefined && facts[at]!.traceId !== c.traceId) at = earlier?.get(at);
    if (at === undefined) continue;
    const info = infoAt[at]!;
    const outcome = c.outcome.outcome;
    const i = info.run?.offer.indexByName.get(c.name);
    const v = i === undefined ? undefined : info.run!.seen[i];
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
      const tool = clipTool(countedTool(outcome, c.name));
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
    sightings: mixed ? transitions(rawSightings(segments)) : firstSightings(segments),
    repeatedKeys: mixed,
  };
}

type ValueKind = 'prompt' | 'model' | 'provider';
/** One shape for every service (its slots read by name, not by a computed key). */
type ValueRuns = Record<ValueKind, Segment | undefined>;

interface ProviderSlot {
  service: string;
  /** '' when the span named none. */
  provider: string;
  /** Calls offered no definition, by the tool they are counted under. */
  byTool: Map<string, CountGroup>;
}

interface SpanInfo {
  run?: DefinitionsRun;
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
  offer: Offer;
  /** This batch's version of each definition of the offer, aligned with offer.byDef. */
  seen: VersionSeen[];
  seg: Segment;
}

/** An explicit empty list: a tool set of no names (not cached: no definition to find it by). */
function emptyOffer(service: string): Offer {
  const setVersion = toolSetVersion([]);
  return {
    service,
    maxName: 0,
    defs: [],
    setVersion,
    setKey: `${service}\u0000${setVersion}`,
    names: [],
    byDef: [],
    indexByName: new Map(),
    repeatsName: false,
  };
}

/** A run's earliest and latest time onto its versions. */
function flushRun(r: DefinitionsRun): void {
  const { tMin, tMax } = r.seg;
  for (const v of r.seen) {
    if (tMin < v.firstMs) v.firstMs = tMin;
    if (tMax > v.lastMs) v.lastMs = tMax;
  }
}
