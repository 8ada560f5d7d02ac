/**
 * A batch's counted calls attributed to the span that proposed them — found by span id, the trace
 * checked — and counted per minute under the definition version that span's request offered and the
 * provider that served it: the version_minutes rows (per-version and per-provider error rates).
 * A call looks up its span and its tool's index in the offer; its group (version and provider, or
 * tool and provider when the request offered no definition of it) is found once per span run and
 * tool, not once per call.
 */
import { countedTool, OUTCOMES, type CheckedCall, type OutcomeName, type SpanFacts, type ToolDef } from '../model.js';
import { clipTo, type Offer } from './offers.js';
import type { Segment } from './sightings.js';

/**
 * Calls counted per minute under the definition version their own request offered and the provider
 * that served their model span: what per-version and per-provider error rates are read from.
 */
export interface VersionCount {
  /**
   * service \0 tool \0 version: its version's row key (VersionSeen.key, one string for every batch's
   * rows of it), with the provider and slot what a group commit sums counts by.
   */
  versionKey: string;
  /** Minute number × 8 + outcome index: the rest of its key. */
  slot: number;
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

export interface VersionSeen {
  /** service \0 tool \0 version (the offer's, shared by every batch's row of it). */
  key: string;
  service: string;
  tool: string;
  version: string;
  /** The canonical definition's JSON text (what the diff is computed from). */
  definition: string;
  firstMs: number;
  lastMs: number;
  calls: number;
  /** This batch's calls of it, one group per provider (observeBatch's own bookkeeping). */
  groups: CountGroup[];
}

/** A service's run of requests offering one definitions list, and this batch's version of each. */
export interface DefinitionsRun {
  offered: readonly ToolDef[];
  offer: Offer;
  /** This batch's version of each definition of the offer, aligned with offer.byDef. */
  seen: VersionSeen[];
  seg: Segment;
}

/** The calls of one (service, tool, version, provider), per minute and outcome. */
export interface CountGroup {
  /** service \0 tool \0 version ('' when offered no definition): VersionCount.versionKey. */
  versionKey: string;
  service: string;
  tool: string;
  version: string;
  provider: string;
  /** The minute (number) of its first call, where a batch's calls mostly fall, and their count per outcome (OUTCOMES order). */
  minute: number;
  byOutcome: number[];
  /** Calls of other minutes: minute number × 8 + outcome index → calls. */
  other: Map<number, number> | undefined;
}

interface ProviderSlot {
  service: string;
  /** '' when the span named none. */
  provider: string;
  /** Calls offered no definition, by the tool they are counted under (clipped: two long names equal once clipped are one group). */
  byTool: Map<string, CountGroup>;
  /** The same groups by the counted name before clipping (each clipped once). */
  byName: Map<string, CountGroup>;
}

/** What a remembered span's calls are attributed to: its definitions run and provider. */
interface SpanInfo {
  run: DefinitionsRun | undefined;
  slot: ProviderSlot;
  /** Per definition of the run, its group under this provider (found once). */
  byDef: (CountGroup | undefined)[] | undefined;
}

/**
 * The batch's model spans by span id, with what their calls are attributed to. spanId → the index
 * in `facts` of the latest span of that id remembered (the trace is checked); infoAt[index] its run
 * and provider. A number per span, no object.
 */
export class SpanIndex {
  private readonly bySpan = new Map<string, number>();
  private readonly infoAt: (SpanInfo | undefined)[];
  /** A remembered span's index → an earlier one of the same span id (another trace's, or the span sent twice). */
  private earlier: Map<number, number> | undefined;
  private readonly slots = new Map<string, Map<string, ProviderSlot>>();
  /** The info last made: consecutive runs of one (run, provider) share it. */
  private lastInfo: SpanInfo | undefined;
  /** The info the last span remembered was remembered with (undefined: it was not). */
  private lastRemembered: SpanInfo | undefined;

  constructor(
    private readonly facts: readonly SpanFacts[],
    readonly maxName: number,
  ) {
    this.infoAt = new Array(facts.length);
  }

  /** The span at `at` (a model span naming a provider or offering definitions) by its id. */
  remember(f: SpanFacts, at: number, service: string, provider: string, run: DefinitionsRun | undefined): void {
    let info = this.lastInfo;
    if (!info || info.run !== run || info.slot.service !== service || info.slot.provider !== provider) {
      let of = this.slots.get(service);
      if (!of) this.slots.set(service, (of = new Map()));
      let slot = of.get(provider);
      if (!slot) of.set(provider, (slot = { service, provider, byTool: new Map(), byName: new Map() }));
      this.lastInfo = info = { run, slot, byDef: undefined };
    }
    this.lastRemembered = info;
    this.put(f, at, info);
  }

  /** A span repeating the last one's values: remembered as it was (or not at all). */
  rememberLast(f: SpanFacts, at: number): void {
    if (this.lastRemembered) this.put(f, at, this.lastRemembered);
  }

  /** The last span was not remembered (no provider, no definitions). */
  forgetLast(): void {
    this.lastRemembered = undefined;
  }

  get empty(): boolean {
    return this.bySpan.size === 0;
  }

  /** The latest remembered span of the call's id and trace. */
  find(c: CheckedCall): SpanInfo | undefined {
    let at = this.bySpan.get(c.spanId);
    while (at !== undefined && this.facts[at]!.traceId !== c.traceId) at = this.earlier?.get(at);
    return at === undefined ? undefined : this.infoAt[at];
  }

  private put(f: SpanFacts, at: number, info: SpanInfo): void {
    const { bySpan, infoAt } = this;
    infoAt[at] = info;
    const known = bySpan.size;
    bySpan.set(f.spanId, at);
    // One span id in two traces (or a span sent twice): chained, the later one found first. The
    // map did not grow, so an earlier span had the id: found by looking back (rare, unlike a lookup per span).
    if (bySpan.size === known)
      for (let j = at - 1; j >= 0; j--)
        if (infoAt[j] !== undefined && this.facts[j]!.spanId === f.spanId) {
          (this.earlier ??= new Map()).set(at, j);
          break;
        }
  }
}

/** The calls counted per (minute, service, tool, version, provider, outcome); each call's version gains it. */
export function countCalls(index: SpanIndex, calls: readonly CheckedCall[]): VersionCount[] {
  if (index.empty) return [];
  const groups: CountGroup[] = [];
  for (const c of calls) {
    const info = index.find(c);
    if (info === undefined) continue;
    const outcome = c.outcome.outcome;
    const minute = Math.floor(c.timeMs / 60_000);
    const run = info.run;
    const i = run?.offer.indexByName.get(c.name);
    let group: CountGroup | undefined;
    if (i !== undefined) {
      const v = run!.seen[i]!;
      v.calls++;
      const byDef = (info.byDef ??= []);
      group = byDef[i];
      if (!group) byDef[i] = group = versionGroup(v, info.slot.provider, minute, groups);
    } else if (info.slot.provider !== '') {
      const name = countedTool(outcome, c.name);
      const { slot } = info;
      group = slot.byName.get(name);
      if (!group) {
        const tool = clipTo(name, index.maxName);
        group = slot.byTool.get(tool);
        if (!group) {
          group = newGroup(`${slot.service}\u0000${tool}\u0000`, slot.service, tool, '', slot.provider, minute);
          slot.byTool.set(tool, group);
          groups.push(group);
        }
        slot.byName.set(name, group);
      }
    } else continue;
    const o = OUTCOME_INDEX[outcome];
    if (minute === group.minute) group.byOutcome[o]!++;
    else {
      const k = minute * 8 + o;
      const other = (group.other ??= new Map());
      other.set(k, (other.get(k) ?? 0) + 1);
    }
  }
  const counts: VersionCount[] = [];
  for (const g of groups) {
    const { versionKey, service, tool, version, provider } = g;
    for (let o = 0; o < OUTCOME_NAMES.length; o++) {
      const count = g.byOutcome[o]!;
      if (count > 0)
        counts.push({
          versionKey,
          slot: g.minute * 8 + o,
          minute: g.minute * 60_000,
          service,
          tool,
          version,
          provider,
          outcome: OUTCOME_NAMES[o]!,
          count,
        });
    }
    if (g.other)
      for (const [k, count] of g.other)
        counts.push({
          versionKey,
          slot: k,
          minute: Math.floor(k / 8) * 60_000,
          service,
          tool,
          version,
          provider,
          outcome: OUTCOME_NAMES[k % 8]!,
          count,
        });
  }
  return counts;
}

/** The version's group under `provider` (one per provider a batch names: a short list). */
function versionGroup(v: VersionSeen, provider: string, minute: number, groups: CountGroup[]): CountGroup {
  for (const g of v.groups) if (g.provider === provider) return g;
  const g = newGroup(v.key, v.service, v.tool, v.version, provider, minute);
  v.groups.push(g);
  groups.push(g);
  return g;
}

const newGroup = (
  versionKey: string,
  service: string,
  tool: string,
  version: string,
  provider: string,
  minute: number,
): CountGroup => ({
  versionKey,
  service,
  tool,
  version,
  provider,
  minute,
  byOutcome: OUTCOME_NAMES.map(() => 0),
  other: undefined,
});

const OUTCOME_NAMES: readonly OutcomeName[] = OUTCOMES;
const OUTCOME_INDEX = Object.fromEntries(OUTCOMES.map((o, i) => [o, i])) as Record<OutcomeName, number>;
