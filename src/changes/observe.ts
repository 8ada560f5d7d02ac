/**
 * What one batch says about the things that can change under an agent, read from its model spans:
 * per service the model, the provider, the set of tools offered and each tool's definition version.
 * Pure: facts and counted calls in; out the definition versions seen (with the calls attributed to
 * each — the version the call's own request offered) and the runs of each value per service, from
 * which the store's transitions are read (sightings.ts).
 *
 * Work is done per distinct value, not per span: a model span that repeats the one before it (its
 * service, model, provider, prompt and definitions as sent — most of a batch: one agent's requests)
 * costs a few comparisons and widens a time range; only the first span of each value is clipped,
 * looked up and sighted (definitions are hashed once per distinct definitions value, offers.ts).
 */
import type { CheckedCall, SpanFacts, ToolDef } from '../model.js';
import { toolSetVersion } from '../tools/definition-hash.js';
import { countCalls, SpanIndex, type DefinitionsRun, type VersionCount, type VersionSeen } from './count-calls.js';
import { clipTo, offerOf, sameDefs, type Offer } from './offers.js';
import { rawSightings, transitions, type Segment, type Sighting } from './sightings.js';

export { CHANGE_KINDS, type ChangeKind, type Sighting } from './sightings.js';
export type { VersionCount, VersionSeen } from './count-calls.js';

export interface ToolSetSeen {
  service: string;
  version: string;
  /** The distinct names, sorted. */
  names: string[];
}

export interface BatchObservation {
  versions: VersionSeen[];
  counts: VersionCount[];
  toolSets: ToolSetSeen[];
  /**
   * Every run of one value (or one definitions list) of a service, in the order they began: when no
   * key was sighted with two values, each one's first sighting is all its sightings say
   * (sightings.ts firstSightings, or left out whole when the store holds them already: write.ts).
   */
  segments: Segment[];
  /**
   * Only when some (service, kind, key) was sighted with more than one value (a transition inside
   * the batch): per key, in time order, each value only where it differs from the one before.
   */
  transitions: Sighting[] | undefined;
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
  const o = new BatchObserver(facts, limits);
  for (let at = 0; at < facts.length; at++) o.span(facts[at]!, at);
  o.endSpans();
  const segments = o.segments;
  return {
    versions: [...o.versions.values()],
    counts: countCalls(o.index, calls),
    toolSets: [...o.toolSets.values()],
    segments,
    transitions: o.mixed ? transitions(rawSightings(segments)) : undefined,
  };
}

type ValueKind = 'prompt' | 'model' | 'provider';
/** One shape for every service (its slots read by name, not by a computed key). */
type ValueRuns = Record<ValueKind, Segment | undefined>;

/** A model span's values as sent, what they were sighted as, and the time range of the spans repeating them. */
interface LastSpan {
  service: string;
  model: string | undefined;
  provider: string | undefined;
  prompt: string | undefined;
  offered: readonly ToolDef[] | undefined;
  /** The runs it was sighted in: prompt, model, provider, definitions (undefined where none). */
  prompts: Segment | undefined;
  models: Segment | undefined;
  providers: Segment | undefined;
  run: DefinitionsRun | undefined;
  tMin: number;
  tMax: number;
}

/** One batch's pass over its spans: the runs of each value per service, the versions and tool sets seen. */
class BatchObserver {
  /** A key sighted with two values in this batch: only then are its sightings sorted into transitions. */
  mixed = false;
  readonly versions = new Map<string, VersionSeen>();
  readonly toolSets = new Map<string, ToolSetSeen>();
  /** Every run of one value (or one definitions list) of a service, in the order they began. */
  readonly segments: Segment[] = [];
  readonly index: SpanIndex;
  /** Per service the current run of each value kind. */
  private readonly valueRuns = new Map<string, ValueRuns>();
  /** Per service its current definitions run. */
  private readonly runs = new Map<string, DefinitionsRun>();
  /**
   * The last model span's values as sent and the runs they were sighted in: a span repeating them
   * all only widens its time range, put onto those runs when another value comes (or the spans end).
   */
  private last: LastSpan | undefined;

  constructor(
    facts: readonly SpanFacts[],
    private readonly limits: ObserveLimits,
  ) {
    this.index = new SpanIndex(facts, limits.maxName);
  }

  span(f: SpanFacts, at: number): void {
    // Instructions are on the model span, or (Microsoft Agent Framework) on the agent span above it.
    const prompt = f.promptVersion;
    const isModel = f.role === 'model';
    // Most spans of a batch (tools, agents, chains) say nothing of what can change: left at once.
    if (!isModel && !prompt) return;
    const t = Math.floor(f.startTimeMs);
    const offered = f.offered;
    const last = this.last;
    if (last !== undefined) {
      if (
        isModel &&
        f.service === last.service &&
        f.model === last.model &&
        f.provider === last.provider &&
        prompt === last.prompt &&
        (offered === undefined
          ? last.offered === undefined
          : last.offered !== undefined && sameDefs(last.offered, offered))
      ) {
        if (t < last.tMin) last.tMin = t;
        else if (t > last.tMax) last.tMax = t;
        this.index.rememberLast(f, at);
        return;
      }
      widen(last);
      this.last = undefined;
    }
    const service = clipTo(f.service, this.limits.maxName);
    const of = this.runsOf(service);
    if (prompt) of.prompt = this.sight(of.prompt, service, 'prompt', prompt, t);
    if (!isModel) return;
    const model = f.model;
    const providerName = f.provider;
    if (model) of.model = this.sight(of.model, service, 'model', clipTo(model, this.limits.maxName), t);
    const provider = providerName ? clipTo(providerName, this.limits.maxName) : undefined;
    if (provider) of.provider = this.sight(of.provider, service, 'provider', provider, t);
    const run = offered ? this.definitionsRun(service, offered, t) : undefined;
    if (run || provider) this.index.remember(f, at, service, provider ?? '', run);
    else this.index.forgetLast();
    this.last = {
      service: f.service,
      model,
      provider: providerName,
      prompt,
      offered,
      prompts: prompt ? of.prompt : undefined,
      models: model ? of.model : undefined,
      providers: provider ? of.provider : undefined,
      run,
      tMin: t,
      tMax: t,
    };
  }

  /** The repeats' time range onto their runs, and each definitions run's onto its versions. */
  endSpans(): void {
    if (this.last) widen(this.last);
    this.last = undefined;
    for (const r of this.runs.values()) flushRun(r);
  }

  private runsOf(service: string): ValueRuns {
    let of = this.valueRuns.get(service);
    if (!of) this.valueRuns.set(service, (of = { prompt: undefined, model: undefined, provider: undefined }));
    return of;
  }

  /** The run of `value` in `run` widened to t, or (another value) a new run begun: what the kind's slot holds next. */
  private sight(run: Segment | undefined, service: string, kind: ValueKind, value: string, t: number): Segment {
    if (run && run.value === value) {
      if (t < run.tMin) run.tMin = t;
      else if (t > run.tMax) run.tMax = t;
      return run;
    }
    if (run) this.mixed = true;
    const seg: Segment = { service, kind, value, tMin: t, tMax: t };
    this.segments.push(seg);
    return seg;
  }

  /**
   * The service's run of `offeredAll`'s definitions at t: its current one widened when it offers
   * the same (shared, frozen) definitions — one agent's requests one after another — else a new one.
   */
  private definitionsRun(service: string, offeredAll: readonly ToolDef[], t: number): DefinitionsRun {
    const { maxName, maxToolsPerRequest } = this.limits;
    const offered = offeredAll.length > maxToolsPerRequest ? offeredAll.slice(0, maxToolsPerRequest) : offeredAll;
    const prev = this.runs.get(service);
    if (prev && sameDefs(prev.offered, offered)) {
      if (t < prev.seg.tMin) prev.seg.tMin = t;
      if (t > prev.seg.tMax) prev.seg.tMax = t;
      return prev;
    }
    if (prev) {
      flushRun(prev);
      this.mixed = true;
    }
    const offer = offered.length > 0 ? offerOf(service, offered, maxName) : emptyOffer(service);
    if (!this.toolSets.has(offer.setKey))
      this.toolSets.set(offer.setKey, { service, version: offer.setVersion, names: offer.names });
    const seen: VersionSeen[] = [];
    for (const d of offer.byDef) {
      let v = this.versions.get(d.key);
      if (!v) {
        v = {
          key: d.key,
          service,
          tool: d.tool,
          version: d.version,
          definition: d.definition,
          firstMs: t,
          lastMs: t,
          calls: 0,
          groups: [],
        };
        this.versions.set(d.key, v);
      }
      seen.push(v);
    }
    // One request offering a name twice: two sightings of one key.
    if (offer.repeatsName) this.mixed = true;
    const seg: Segment = { service, kind: 'tool_set', value: offer.setVersion, offer, tMin: t, tMax: t };
    this.segments.push(seg);
    const run: DefinitionsRun = { offered, offer, seen, seg };
    this.runs.set(service, run);
    return run;
  }
}

/** A value's repeats onto the runs it was sighted in. */
function widen(l: LastSpan): void {
  for (const seg of [l.prompts, l.models, l.providers, l.run?.seg]) {
    if (!seg) continue;
    if (l.tMin < seg.tMin) seg.tMin = l.tMin;
    if (l.tMax > seg.tMax) seg.tMax = l.tMax;
  }
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
