/**
 * A reader's marks (dialect.ts) decide which readers the registry asks about a span: they must never
 * leave out a reader whose `matches` is true. Checked on every framework fixture span, and the
 * registry's choice against asking every reader in turn.
 */
import { describe, expect, it } from 'vitest';
import type { AttrObject, Span } from '../../src/model.js';
import type { DialectReader } from '../../src/normalize/dialect.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { baseFacts } from '../../src/normalize/facts.js';
import { loadDialectFixtures } from '../helpers/dialect-fixtures.js';
import { makeEvent, makeSpan } from '../helpers/spans.js';

const dialects = builtinDialects();
const readers = dialects.values();
const fixtureSpans: Span[] = loadDialectFixtures().flatMap((f) => f.spans);

/** The reader the registry would pick by asking every reader's `matches` in precedence order. */
function firstMatch(span: Span): DialectReader | undefined {
  return readers.find((r) => r.matches(span));
}

function without(a: AttrObject, keys: readonly string[]): AttrObject {
  const out = Object.create(null) as AttrObject;
  for (const k of Object.keys(a)) if (!keys.includes(k)) out[k] = a[k]!;
  return out;
}

/** Spans made of marks: each mark key alone, beside the catch-all's, and with an old-form event. */
function markSpans(): Span[] {
  const out: Span[] = [];
  for (const r of readers) {
    for (const k of r.marks?.keys ?? []) {
      out.push(makeSpan({ [k]: 'x' }));
      out.push(makeSpan({ [k]: 'x', 'gen_ai.operation.name': 'chat' }));
      out.push(makeSpan({ [k]: null }, { name: 'ai.generateText' }));
      out.push(makeSpan({ [k]: '{}' }, { events: [makeEvent('gen_ai.choice', { message: '{}' })] }));
    }
  }
  out.push(makeSpan({ 'operation.name': 'ai.streamText.doStream fn' }));
  out.push(makeSpan({}, { name: 'ai.toolCall' }));
  out.push(makeSpan({}, { events: [makeEvent('gen_ai.user.message', { content: 'hi' })] }));
  out.push(makeSpan({ 'gen_ai.system': 'gcp.vertex.agent' }));
  return out;
}

describe('dialect marks', () => {
  it('every built-in reader names its marks', () => {
    for (const r of readers) expect(r.marks?.keys.length, r.name).toBeGreaterThan(0);
  });

  it('a span without a reader’s marks is never one that reader matches', () => {
    for (const span of [...fixtureSpans, ...markSpans()]) {
      for (const r of readers) {
        const stripped: Span = { ...span, attributes: without(span.attributes, r.marks!.keys) };
        if (r.marks!.also?.(stripped)) continue;
        expect(r.matches(stripped), `${r.name} on ${span.name}`).toBe(false);
      }
    }
  });

  it('the registry picks the reader that asking every reader in turn picks', () => {
    for (const span of [...fixtureSpans, ...markSpans()]) {
      expect(dialects.normalizeSpan(span)?.dialect, span.name).toBe(firstMatch(span)?.name);
    }
  });

  it('a reader without marks is asked about every span; one with marks only about marked spans', () => {
    const d = builtinDialects();
    const asked: string[] = [];
    d.add(
      {
        name: 'unmarked',
        matches: (s) => (asked.push(s.name), false),
        read: (s) => baseFacts(s, 'unmarked', 'other'),
      },
      { before: 'langfuse-otel' },
    );
    d.add(
      {
        name: 'marked',
        marks: { keys: ['custom.kind'] },
        matches: (s) => s.attributes['custom.kind'] === 'llm',
        read: (s) => baseFacts(s, 'marked', 'model'),
      },
      { before: 'genai' },
    );
    expect(d.normalizeSpan(makeSpan({ 'http.route': '/x' }, { name: 'plain' }))).toBeUndefined();
    expect(d.normalizeSpan(makeSpan({ 'custom.kind': 'llm', 'gen_ai.system': 'x' }))?.dialect).toBe('marked');
    expect(d.normalizeSpan(makeSpan({ 'custom.kind': 'db', 'gen_ai.system': 'x' }))?.dialect).toBe('genai');
    expect(asked).toEqual(['plain', 'span', 'span']);
  });

  it('reads attribute objects in fast mode with a frozen null-prototype prototype alike', () => {
    const proto = Object.freeze(Object.create(null)) as object;
    for (const span of fixtureSpans) {
      const fast = Object.create(proto) as AttrObject;
      for (const k of Object.keys(span.attributes)) fast[k] = span.attributes[k]!;
      expect(dialects.normalizeSpan({ ...span, attributes: fast })?.dialect, span.name).toBe(
        dialects.normalizeSpan(span)?.dialect,
      );
    }
  });
});
