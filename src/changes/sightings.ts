/**
 * A batch's sightings from its runs of values (segments): in the steady state each key's earliest
 * sighting, else every segment sighted at its earliest and latest time and sorted into transitions
 * per key — each value only where it differs from the one before.
 */
import type { Offer } from './offers.js';

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

/**
 * A run of one value of a (service, kind), or of one definitions list (kind tool_set, with its
 * offer: the list's tool set and each definition's version are sighted together), with the
 * earliest and latest time it was seen.
 */
export interface Segment {
  service: string;
  kind: ChangeKind;
  value: string;
  offer?: Offer;
  tMin: number;
  tMax: number;
}

/** A segment's sightings at time t: its value, and for a definitions list each definition's version. */
function pushSightings(out: Sighting[], seg: Segment, t: number): void {
  const { service } = seg;
  out.push({ service, kind: seg.kind, key: '', value: seg.value, timeMs: t });
  if (seg.offer)
    for (const d of seg.offer.byDef)
      out.push({ service, kind: 'tool_definition', key: d.tool, value: d.version, timeMs: t });
}

/** A segment's sightings at its earliest time: all a run says when no key of the batch holds two values. */
export function firstSightings(seg: Segment): Sighting[] {
  const out: Sighting[] = [];
  pushSightings(out, seg, seg.tMin);
  return out;
}

/** Each segment sighted at its earliest and its latest time, in the order the segments began. */
export function rawSightings(segments: readonly Segment[]): Sighting[] {
  const out: Sighting[] = [];
  for (const seg of segments) {
    pushSightings(out, seg, seg.tMin);
    pushSightings(out, seg, seg.tMax);
  }
  return out;
}

/**
 * Per key, in time order, each value only where it differs from the one before. Most keys hold one
 * value all batch long: those give their earliest sighting without a sort.
 */
export function transitions(raw: Sighting[]): Sighting[] {
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
