/**
 * Attribute value helpers shared by every dialect reader (src/normalize/) and the tool-definition
 * reader (src/tools/). Attribute values of type `any` arrive either as a JSON string or as an
 * already-decoded structure (kvlist → null-prototype object, arrayValue → array), so every reader
 * goes through these instead of guessing.
 */
import type { AttrObject, AttrValue, ToolArgs } from '../model.js';

/**
 * Nesting cap for anything we walk or serialise. Real arguments and schemas are a few levels deep;
 * hostile ones can be 100,000 levels deep and would overflow the stack of a recursive walk or of
 * JSON.stringify.
 */
export const MAX_DEPTH = 64;

/** Raw form stored for arguments nested deeper than MAX_DEPTH: not valid JSON, so the checker says InvalidJson. */
export const TOO_DEEP_RAW = `<toolwatch: value nested deeper than ${MAX_DEPTH} levels>`;

export const NO_ARGS: ToolArgs = Object.freeze({ kind: 'none' }) as ToolArgs;

export type Rec = { readonly [key: string]: unknown };

/** A JSON-ish object: plain or null-prototype, never an array or bytes. */
export function isRecord(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/** JSON.parse that reports failure as undefined (JSON itself can never produce undefined). */
export function parseJson(s: string): unknown {
  try {
    return parseJsonText(s);
  } catch {
    return undefined;
  }
}

/**
 * JSON.parse whose SyntaxError carries no stack: only its message is ever read, and capturing the
 * stack of a failed parse cost ~37 µs inside a request (measured in the app: about 15 times the
 * parse of a valid 100-byte argument string), paid by every InvalidJson call and unparseable attribute.
 * Throws what JSON.parse throws, with the same message.
 */
export function parseJsonText(s: string): unknown {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return JSON.parse(s);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * The plain JS value of an `any`-typed attribute: a string is parsed as JSON (undefined when it is
 * not JSON), a structured value is returned as decoded. Bytes carry no JSON for us.
 */
export function jsonValue(v: unknown): unknown {
  if (typeof v === 'string') return v === '' ? undefined : parseJson(v);
  if (v instanceof Uint8Array) return undefined;
  return v;
}

/**
 * jsonValue for a reader whose span is read again right after by another (the model output, read by
 * the dialect reader and then for its finish reasons: normalize/finish-reasons.ts): the parse of a
 * string is remembered for one takeJsonValue of the same text, so a span's output is parsed once.
 */
let sharedText: string | undefined;
let sharedValue: unknown;
export function jsonValueShared(v: unknown): unknown {
  if (typeof v !== 'string' || v === '') return jsonValue(v);
  const parsed = parseJson(v);
  sharedText = v;
  sharedValue = parsed;
  return parsed;
}

/**
 * The value jsonValueShared parsed from this very text, handed out once (a later reader that
 * changes a value must not see it changed here); undefined when it was not the last text parsed.
 */
export function takeJsonValue(text: string): { value: unknown } | undefined {
  if (text !== sharedText) return undefined;
  const value = sharedValue;
  sharedText = undefined;
  sharedValue = undefined;
  return { value };
}

/** A non-empty string attribute. */
export function str(a: AttrObject, key: string): string | undefined {
  const v = a[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A string field of a decoded object (plain or null-prototype). */
export function field(o: Rec, key: string): string | undefined {
  const v = o[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A numeric attribute; int64 values may reach us as decimal strings. */
export function num(a: AttrObject, key: string): number | undefined {
  const v = a[key];
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Whether any of these attributes is there at all (null included: a key sent without a value). */
export function hasAnyKey(a: AttrObject, keys: readonly string[]): boolean {
  for (const k of keys) if (a[k] !== undefined) return true;
  return false;
}

/** First of several attribute names that is present (not undefined/null). */
export function firstAttr(a: AttrObject, keys: readonly string[]): AttrValue | undefined {
  for (const k of keys) {
    const v = a[k];
    if (v !== undefined && v !== null) return v;
  }
  return undefined;
}

/** true when an object/array nests deeper than `budget` levels; the walk itself stops at the budget. */
export function exceedsDepth(v: unknown, budget: number = MAX_DEPTH): boolean {
  if (typeof v !== 'object' || v === null || v instanceof Uint8Array) return false;
  if (budget <= 0) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (exceedsDepth(x, budget - 1)) return true;
    return false;
  }
  const o = v as Rec;
  for (const k in o) if (exceedsDepth(o[k], budget - 1)) return true;
  return false;
}

/** JSON.stringify that refuses over-deep values and never throws (BigInt, cycles). */
export function safeStringify(v: unknown): string | undefined {
  if (exceedsDepth(v)) return undefined;
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * Arguments as the emitter sent them. Strings are kept verbatim, even when they are not JSON: deciding
 * InvalidJson is the checker's job. '' counts as no arguments: several emitters write it for
 * zero-argument calls, and calling that InvalidJson would be a false alarm.
 */
export function toToolArgs(v: unknown): ToolArgs {
  if (v === undefined || v === null || v === '') return NO_ARGS;
  if (typeof v === 'string') return { kind: 'string', raw: v };
  if (v instanceof Uint8Array) return v.length === 0 ? NO_ARGS : { kind: 'string', raw: utf8.decode(v) };
  const raw = safeStringify(v);
  // An over-deep structure would also sink Ajv; hand the checker an unparseable marker instead.
  if (raw === undefined) return { kind: 'string', raw: TOO_DEEP_RAW };
  return { kind: 'structured', value: v, raw };
}

/** Back from ToolArgs to the value a reader found (to hand it on to execution()/toToolArgs()). */
export function argValue(a: ToolArgs): unknown {
  return a.kind === 'none' ? undefined : a.kind === 'structured' ? a.value : a.raw;
}

/** A tool result as text: strings verbatim, structures serialised. */
export function resultText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return utf8.decode(v);
  return safeStringify(v) ?? TOO_DEEP_RAW;
}
