/**
 * The 64-bit keys of the dedupe memory (dedupe-tables.ts): trace ids, span ids with their service,
 * and call keys are remembered by a hash, not by their text. Two multiply-xor lanes of 32 bits over
 * the UTF-16 code units with a cyrb53-style finaliser (non-cryptographic, allocation-free: the result
 * is left in `h64`). A false "seen" needs two keys of one trace (or two trace ids) with equal 64-bit
 * hashes: about n² / 2^65 for n keys (docs/performance.md, "Sizing the dedupe memory").
 */

/** The last hash: [high 32 bits, low 32 bits] as signed integers (what the tables store). */
export const h64 = new Int32Array(2);

let a = 0;
let b = 0;

/** Parts are fed with a separator no UTF-16 code unit equals, so ("ab", "c") and ("a", "bc") differ. */
function feed(s: string): void {
  feedUnits(s);
  a = Math.imul(a ^ 0x10001, 2654435761);
  b = Math.imul(b ^ 0x10001, 1597334677);
}

function feedUnits(s: string): void {
  let x = a;
  let y = b;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    x = Math.imul(x ^ c, 2654435761);
    y = Math.imul(y ^ c, 1597334677);
  }
  a = x;
  b = y;
}

function finish(): void {
  let x = Math.imul(a ^ (a >>> 16), 2246822507);
  x ^= Math.imul(b ^ (b >>> 13), 3266489909);
  let y = Math.imul(b ^ (b >>> 16), 2246822507);
  y ^= Math.imul(x ^ (x >>> 13), 3266489909);
  h64[0] = y;
  h64[1] = x;
}

/** Domains: a trace id, a span (id + service) and a call key never share a hash by construction. */
export const TRACE = 1;
export const SPAN = 2;
export const CALL = 3;
/** A model span remembered for GenAI log records (log-join.ts): trace id + span id. */
export const MODEL_SPAN = 5;

export function hashKey(domain: number, first: string, second?: string): void {
  a = 0xdeadbeef ^ domain;
  b = 0x41c6ce57 ^ domain;
  feed(first);
  if (second !== undefined) feed(second);
  finish();
}

/** hashKey(domain, first) as it stood before `second` was fed: left by hashKeyAndFirst. */
export const hFirst = new Int32Array(2);

/** hashKey(domain, first, second) into h64, and hashKey(domain, first) into hFirst, in one pass over `first`. */
export function hashKeyAndFirst(domain: number, first: string, second: string): void {
  a = 0xdeadbeef ^ domain;
  b = 0x41c6ce57 ^ domain;
  feed(first);
  finish();
  hFirst[0] = h64[0]!;
  hFirst[1] = h64[1]!;
  feed(second);
  finish();
}

/** hashKey(domain, prefix + rest), without building the joined string (a call key `id:<call id>`). */
export function hashJoined(domain: number, prefix: string, rest: string): void {
  a = 0xdeadbeef ^ domain;
  b = 0x41c6ce57 ^ domain;
  feedUnits(prefix);
  feed(rest);
  finish();
}

/** 32 bits of a tool name: an id-less sighting pairs with a remembered call by name hash. */
export function nameHash(name: string): number {
  let x = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) x = Math.imul(x ^ name.charCodeAt(i), 16777619);
  return x ^ (x >>> 15);
}

/**
 * What an id-less sighting pairs by, in one 32-bit word: 22 bits of the tool name's hash, 10 of the
 * arguments' (0: none). A collision of names in one trace only swaps which call an execution is
 * paired with (each call is still counted once); one of arguments only loses the preference for
 * equal arguments among calls of one name (the fallback is the oldest by name).
 */
export function pairOf(name: string, argsRaw: string | undefined): number {
  // A sighting is paired (findUnpaired) and then remembered (place) by the same name and arguments:
  // the last answer saves walking the arguments a second time.
  if (name === lastName && argsRaw === lastArgs) return lastPair;
  lastPair = ((nameHash(name) & 0x3fffff) << 10) | (argsHash(argsRaw) & 0x3ff);
  lastName = name;
  lastArgs = argsRaw;
  return lastPair;
}

let lastName: string | undefined;
let lastArgs: string | undefined;
let lastPair = 0;

/**
 * 32 bits of raw arguments with JSON whitespace outside strings left out, so `{"a": 1}` and `{"a":1}`
 * (emitters re-serialise with different separators) hash alike; 0 means no arguments. Arguments that
 * differ otherwise (key order) pair by name alone, as before when they did not parse.
 */
export function argsHash(raw: string | undefined): number {
  if (raw === undefined) return 0;
  let x = 0x811c9dc5;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) {
        x = Math.imul(x ^ c, 16777619);
        i++;
        if (i < raw.length) x = Math.imul(x ^ raw.charCodeAt(i), 16777619);
        continue;
      }
      if (c === 34) inString = false;
    } else if (c === 32 || c === 9 || c === 10 || c === 13) continue;
    else if (c === 34) inString = true;
    x = Math.imul(x ^ c, 16777619);
  }
  return (x ^ (x >>> 15)) | 1;
}
