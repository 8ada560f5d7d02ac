/**
 * What observing one offered definitions list yields for a service — the tool-set version and its
 * names, and per definition the tool (clipped), its version, canonical text and row key — worked out
 * once per distinct list and service, not once per batch. The definitions read from one definitions
 * string are the same frozen objects for every span that sends it (tools/tooldefs.ts), and each span
 * gets its own array of them, so a list is found by its first definition's identity and then
 * compared element by element; a list with an unshared (unfrozen) definition is worked out afresh.
 */
import type { ToolDef } from '../model.js';
import { storableText } from '../store/storable-text.js';
import { canonicalText, definitionVersion, toolSetVersion } from '../tools/definition-hash.js';

/** One definition of an offered list, as observed for its service. */
export interface OfferedDef {
  /** The name as offered (what calls are matched by). */
  name: string;
  /** The name as stored: clipped and storable. */
  tool: string;
  version: string;
  /** The canonical definition's JSON text. */
  definition: string;
  /** service \0 tool \0 version: one VersionSeen per key in a batch. */
  key: string;
}

export interface Offer {
  service: string;
  maxName: number;
  /** The definitions as offered (identity is what a later list is compared by). */
  defs: readonly ToolDef[];
  setVersion: string;
  /** service \0 setVersion: one ToolSetSeen per key in a batch. */
  setKey: string;
  /** The distinct stored names, sorted (shared: never edited). */
  names: string[];
  byDef: OfferedDef[];
  /** Name as offered → index in byDef of its last definition (a name offered twice: the last one). */
  indexByName: Map<string, number>;
  /** Some name is offered twice (two sightings of one key). */
  repeatsName: boolean;
}

/** Clipped and storable (storable-text.ts): a NUL in a service or tool name must not fail the batch on PostgreSQL. */
export const clipTo = (s: string, n: number) => storableText(s.length > n ? s.slice(0, n) : s);

/** Offers per first definition: a few services may send one list (bounded, the oldest replaced). */
const MAX_OFFERS_PER_DEF = 8;
const offers = new WeakMap<ToolDef, Offer[]>();

/** The same definitions: most often the very same (shared, parsed once) objects. */
export function sameDefs(a: readonly ToolDef[], b: readonly ToolDef[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The offer of `defs` (non-empty) for `service` (already clipped). */
export function offerOf(service: string, defs: readonly ToolDef[], maxName: number): Offer {
  const head = defs[0]!;
  const list = offers.get(head);
  if (list)
    for (const o of list) if (o.service === service && o.maxName === maxName && sameDefs(o.defs, defs)) return o;
  const offer = build(service, defs, maxName);
  // Only shared definitions are cached: an unfrozen one may be edited by its owner.
  if (!defs.every((d) => Object.isFrozen(d))) return offer;
  if (!list) offers.set(head, [offer]);
  else {
    if (list.length >= MAX_OFFERS_PER_DEF) list.shift();
    list.push(offer);
  }
  return offer;
}

function build(service: string, defs: readonly ToolDef[], maxName: number): Offer {
  const byDef: OfferedDef[] = [];
  const indexByName = new Map<string, number>();
  let repeatsName = false;
  for (const def of defs) {
    const tool = clipTo(def.name, maxName);
    const version = definitionVersion(def);
    if (indexByName.has(def.name)) repeatsName = true;
    indexByName.set(def.name, byDef.length);
    byDef.push({
      name: def.name,
      tool,
      version,
      definition: canonicalText(def),
      key: `${service}\u0000${tool}\u0000${version}`,
    });
  }
  const setVersion = toolSetVersion(defs);
  return {
    service,
    maxName,
    // The caller's array is its own (a span's): keep a copy, compared by its elements.
    defs: [...defs],
    setVersion,
    setKey: `${service}\u0000${setVersion}`,
    names: [...new Set(byDef.map((d) => d.tool))].sort(),
    byDef,
    indexByName,
    repeatsName,
  };
}
