/**
 * Schema patterns run on a linear-time engine (issue 8, High 1): the classic catastrophic patterns
 * answer in milliseconds, ECMA-262 meaning is kept where JavaScript and RE2 differ, and what RE2
 * cannot run makes the schema `unvalidated` (`bad_schema`) with the reason.
 */
import formats from 'ajv-formats/dist/formats.js';
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/check/classify.js';
import { ToolRegistry } from '../../src/check/registry.js';
import { linearRegExp, toRe2Syntax } from '../../src/check/linear-regexp.js';
import { linearFormats } from '../../src/check/linear-formats.js';
import { SchemaCache } from '../../src/check/schema-cache.js';

const registry = new ToolRegistry();

function check(schema: object, args: unknown, cache = new SchemaCache()) {
  const started = performance.now();
  const call = { name: 't', args: { kind: 'string' as const, raw: JSON.stringify(args) }, service: 's' };
  const outcome = classify({ ...call, offered: [{ name: 't', parameters: schema }] }, registry, cache);
  return { outcome, ms: performance.now() - started };
}

// Each of these backtracks exponentially (or worse than linearly) in a backtracking engine.
const CATASTROPHIC: { pattern: string; input: string }[] = [
  { pattern: '^(a+)+$', input: 'a'.repeat(40) + '!' },
  { pattern: '^(a|a)*$', input: 'a'.repeat(40) + '!' },
  { pattern: '^(a|aa)+$', input: 'a'.repeat(60) + '!' },
  { pattern: '^(a*)*b$', input: 'a'.repeat(40) },
  { pattern: '^(\\w+\\s?)+$', input: 'word '.repeat(20) + '!' },
  {
    pattern:
      '^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$',
    input: 'a'.repeat(40) + '!',
  },
  { pattern: '(.*a){20}', input: 'a'.repeat(40) },
  { pattern: '^(([a-z])+.)+[A-Z]([a-z])+$', input: 'a'.repeat(40) + '!' },
];

describe('schema patterns on the linear-time engine', () => {
  it.each(CATASTROPHIC)('$pattern answers in milliseconds', ({ pattern, input }) => {
    const schema = { type: 'object', properties: { v: { type: 'string', pattern } } };
    const { outcome, ms } = check(schema, { v: input });
    expect(['valid', 'SchemaMismatch']).toContain(outcome.outcome);
    expect(ms).toBeLessThan(500);
    // And on a long input: linear, so 200 KB is still quick.
    const long = check(schema, { v: input.slice(0, 1).repeat(200_000) + '!' });
    expect(long.ms).toBeLessThan(2_000);
  });

  it('patternProperties and propertyNames use the same engine', () => {
    const schema = {
      type: 'object',
      patternProperties: { '^(a+)+$': { type: 'number' } },
      propertyNames: { pattern: '^(b|b)*c?$' },
    };
    const key = 'a'.repeat(40) + '!';
    const { outcome, ms } = check(schema, { [key]: 1, ['b'.repeat(40) + '!']: 2 });
    expect(outcome.outcome).toBe('SchemaMismatch');
    expect(ms).toBeLessThan(500);
  });

  it('keeps the verdicts JavaScript gives on ordinary patterns', () => {
    const cases: [string, string, boolean][] = [
      ['^[a-z]+$', 'abc', true],
      ['^[a-z]+$', 'abc\n', false], // $ is the end of input, not before a final newline
      ['^\\d{3}-\\d{4}$', '555-1234', true],
      ['^\\d+$', '١٢٣', false], // \d is ASCII in JavaScript too
      ['^\\s+$', '\u00a0\u2003\ufeff\u000b', true], // JavaScript's \s, wider than RE2's
      ['^\\S+$', 'a\u00a0b', false],
      ['^[\\s,]+$', ' ,\u3000', true],
      ['^[^\\s]+$', 'ab\u2028', false],
      ['^.$', '\u2028', false], // . excludes every line terminator
      ['^.$', '😀', true], // one code point in u mode
      ['^\\u0041\\u{42}$', 'AB', true],
      ['^[\\u00e0-\\u00ff]+$', 'àé', true],
      ['^\\uD83D\\uDE00$', '😀', true],
      ['^[^]$', '\n', true],
      ['^a[]?$', 'a', true],
      ['^[\\b]$', '\b', true],
      ['\\bcat\\b', 'a cat sat', true],
      ['^\\cJ$', '\n', true],
      ['^\\0$', '\u0000', true],
      ['^(?<year>\\d{4})-(?:\\d{2})$', '2024-01', true],
      ['^\\p{Lu}\\p{Letter}+$', 'Ébc', true],
      ['^\\p{Script=Greek}+$', 'αβγ', true],
      ['^[[:a]+$', '[:a', true], // not a POSIX class in JavaScript
      ['(?<=\\$)\\d+', 'costs $40', true],
      ['(?<!\\$)\\b\\d+', '$40', false],
      ['^\\/api\\/v\\d$', '/api/v2', true],
      ['^[\\-+]?\\d+$', '-3', true],
    ];
    for (const [pattern, input, want] of cases) {
      expect(new RegExp(pattern, 'u').test(input), `native ${pattern}`).toBe(want);
      expect(linearRegExp(pattern, 'u').test(input), pattern).toBe(want);
    }
  });

  it.each([
    ['^(a)\\1$', /backreference/],
    ['^(?<x>a)\\k<x>$', /backreference/],
    ['^(?=a)a$', /lookahead/],
    ['^(?!a)b$', /lookahead/],
    ['^a{1001}$', /linear time/],
    ['^\\p{Script_Extensions=Greek}$', /Unicode property Script_Extensions/],
  ])('refuses %s: the schema is unvalidated (bad_schema) with the reason', (pattern, reason) => {
    expect(() => linearRegExp(pattern, 'u')).toThrow(reason);
    const { outcome } = check({ type: 'object', properties: { v: { type: 'string', pattern } } }, { v: 'a' });
    expect(outcome).toMatchObject({ outcome: 'unvalidated', reason: 'bad_schema' });
    expect((outcome as { message: string }).message).toMatch(reason);
  });

  it('a pattern JavaScript rejects is still a bad schema (not reinterpreted by RE2)', () => {
    for (const pattern of ['(?i)abc', '[[:alpha:]]', 'a{,5}', '\\Qa\\E']) {
      expect(() => linearRegExp(pattern, 'u')).toThrow();
    }
  });

  it('translates to RE2 syntax without captures', () => {
    expect(toRe2Syntax('^(a)(?:b)(?<n>c)$').source).toBe('^(?:a)(?:b)(?:c)$');
    expect(toRe2Syntax('(?<=x)y').lookbehind).toBe(true);
  });
});

describe('format validators are linear too', () => {
  const original = (formats as unknown as { fullFormats: { url: RegExp } }).fullFormats.url;

  it('url: the ajv-formats expression is quadratic; ours answers the same, in linear time', () => {
    const attack = 'ftp://172.30.3.56' + '4.1.6.7:155'.repeat(8_000) + '\u0000';
    const started = performance.now();
    expect(linearFormats.url!(attack)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('url: same verdict as ajv-formats on real and tricky addresses', () => {
    const hosts = [
      'example.com',
      'a-b.example.co.uk',
      'xn--bcher-kva.de',
      'bücher.de',
      'localhost',
      '1.2.3.4',
      '10.1.2.3',
      '127.0.0.1',
      '169.254.1.1',
      '169.253.1.1',
      '172.16.0.1',
      '172.15.0.1',
      '172.32.0.1',
      '172.016.0.1',
      '192.168.1.1',
      '192.169.1.1',
      '224.0.0.1',
      '223.255.255.254',
      '1.2.3.255',
      '8.8.8.8',
      '11.0.0.1',
      '128.0.0.1',
      '100.64.0.1',
      '01.2.3.4',
      'example',
      '-a.com',
      'a.b-.com',
    ];
    const forms = (h: string) => [
      `http://${h}`,
      `https://${h}:8080/path?q=1#f`,
      `ftp://user:pw@${h}/x`,
      `http://${h}/a@10.0.0.1`,
      `HTTP://${h.toUpperCase()}`,
      `http://${h} x`,
      `mailto:${h}`,
    ];
    let checked = 0;
    for (const h of hosts) {
      for (const s of forms(h)) {
        expect(linearFormats.url!(s), s).toBe(original.test(s));
        checked++;
      }
    }
    // Every first and second octet where the private ranges begin and end.
    for (let a = 0; a <= 256; a++) {
      for (const b of [0, 15, 16, 31, 32, 167, 168, 169, 253, 254, 255]) {
        const s = `http://${a}.${b}.7.9`;
        expect(linearFormats.url!(s), s).toBe(original.test(s));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(2_000);
  });

  it('a schema with format: url validates through the linear version', () => {
    const schema = { type: 'object', properties: { u: { type: 'string', format: 'url' } } };
    const attack = 'ftp://172.30.3.56' + '4.1.6.7:155'.repeat(8_000) + '\u0000';
    const { outcome, ms } = check(schema, { u: attack });
    expect(outcome.outcome).toBe('SchemaMismatch');
    expect(ms).toBeLessThan(500);
    expect(check(schema, { u: 'https://example.com/a' }).outcome.outcome).toBe('valid');
  });
});
