/** Builders for decoded spans, shared by tests of every stage. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { newAttrObject, type AttrObject, type AttrValue, type Span, type SpanEvent } from '../../src/model.js';

/** Converts plain JS into the decoder's form: objects → attribute objects (kvlist), arrays stay arrays. */
export function kv(value: unknown): AttrValue {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(kv);
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'object' && value !== null) {
    const out = newAttrObject();
    for (const k of Object.keys(value)) out[k] = kv((value as Record<string, unknown>)[k]);
    return out;
  }
  return value as AttrValue;
}

/** An attribute map as the decoder produces it (model.ts newAttrObject: `__proto__` keys are plain data). */
export function attrs(map: Record<string, unknown>): AttrObject {
  const out = newAttrObject();
  for (const k of Object.keys(map)) out[k] = kv(map[k]);
  return out;
}

export function makeEvent(name: string, attributes: Record<string, unknown> = {}, timeMs = 1_100): SpanEvent {
  return { name, timeMs, attributes: attrs(attributes) };
}

export const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
export const SPAN_ID = 'b7ad6b7169203331';

/** A span with the given attributes; anything else can be overridden. */
export function makeSpan(attributes: Record<string, unknown> = {}, overrides: Partial<Span> = {}): Span {
  return {
    traceId: TRACE_ID,
    spanId: SPAN_ID,
    parentSpanId: '',
    name: 'span',
    kind: 3,
    startTimeMs: 1_000,
    endTimeMs: 1_250,
    statusCode: 0,
    statusMessage: '',
    attributes: attrs(attributes),
    events: [],
    service: 'test-service',
    scope: '',
    scopeVersion: '',
    ...overrides,
  };
}

/** A fixture kept in test/fixtures/ (see test/fixtures/README.md for where each came from). */
export function readFixture(relative: string): Record<string, unknown> {
  const file = fixturePath(relative);
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** The absolute path of a file in test/fixtures/, wherever the tests are run from. */
export function fixturePath(relative: string): string {
  return fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url));
}
