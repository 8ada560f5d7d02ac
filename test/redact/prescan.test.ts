/**
 * The pre-scan (src/redact/prescan.ts) lets the built-in rules skip a text none of them could match.
 * It must never skip one they would change: over the texts of every fixture kept here and in
 * ../shared/fixtures (real payloads), the secret shapes the rules exist for planted in them, and
 * random texts built from the characters the rules look for, the redactor with the pre-scan answers
 * exactly what the rules alone (`prescan: false`) answer — for free text and for JSON values.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasLongBase64Run, mayMatchJson } from '../../src/redact/prescan.js';
import { createRedactor } from '../../src/redact/redact.js';
import { builtinPreScan, type RedactionLevel } from '../../src/redact/rules.js';
import { storeRedactor } from '../../src/redact/stored.js';

const REPO = path.resolve(import.meta.dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.jsonl?$/.test(name) ? [p] : [];
  });
}

/** Every string inside a parsed value, and every object or array's JSON text. */
function collect(v: unknown, texts: Set<string>, jsons: Set<string>): void {
  if (typeof v === 'string') {
    texts.add(v);
    if (/^\s*[[{]/.test(v)) {
      try {
        collect(JSON.parse(v), texts, jsons);
      } catch {
        // not JSON: a text only
      }
    }
  } else if (v && typeof v === 'object') {
    jsons.add(JSON.stringify(v));
    for (const x of Object.values(v)) collect(x, texts, jsons);
  }
}

const texts = new Set<string>();
const jsons = new Set<string>();
for (const dir of [path.join(REPO, 'test/fixtures'), path.resolve(REPO, '../shared/fixtures')])
  for (const file of files(dir)) {
    const body = readFileSync(file, 'utf8');
    for (const doc of file.endsWith('.jsonl') ? body.split('\n').filter(Boolean) : [body]) {
      try {
        collect(JSON.parse(doc), texts, jsons);
      } catch {
        texts.add(doc);
      }
    }
  }

/** One of each shape the built-in rules mask, with a near miss or two beside them. */
const SHAPES = [
  '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  'https://hooks.slack.com/services/T000/B000/XXXXXXXX',
  'postgres://app:hunter2@db.internal:5432/app',
  'https://bucket.s3.amazonaws.com/k?X-Amz-Signature=abcdef0123&X-Amz-Date=1',
  'Authorization: Bearer abcdefghijklmnop',
  'sk-proj-abcdefghijklmnopqrstuvwx',
  'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  'glpat-abcdefghijklmnopqrstu',
  'xoxb-1234567890-abcdefghij',
  'AIzaSyA1234567890abcdefghijklmnopqrstuv',
  'sk_live_abcdefghijklmnop',
  'hf_abcdefghijklmnopqrstuvwxyz0123456789',
  'AKIAIOSFODNN7EXAMPLE',
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'db_password=hunter2',
  '"newPassword": "p4ss word"',
  'X-Api-Key: abc123',
  'card 4111 1111 1111 1111 exp 12/27',
  '4242-4242-4242-4242',
  'mail jane.doe@example.com today',
  'call +1 (555) 123-4567 or 555.123.4567',
  '+420123456789',
  'order 2024-01-15 v1.2.3, id 1234567890',
];

/** Random texts from the characters the rules and the pre-scan turn on (seeded: the same every run). */
function randomTexts(n: number): string[] {
  let seed = 0x2545f491;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const pieces = [
    ...'0123456789     --..()+@:=/_\\"\'?&aAkKxXe',
    'sk-',
    'eyJ',
    'key',
    'pass',
    'Bearer ',
    '://',
    'AKIA',
    '4111',
    'ABCDEFGHIJ',
    'abcdefghij',
    '+/+/',
  ];
  return Array.from({ length: n }, () =>
    Array.from({ length: 1 + Math.floor(next() * 40) }, () => pieces[Math.floor(next() * pieces.length)]).join(''),
  );
}

const LEVELS: RedactionLevel[] = ['secrets', 'pii'];

describe('the pre-scan before the built-in rules', () => {
  it('reads a corpus large enough to mean something', () => {
    expect(texts.size).toBeGreaterThan(2000);
    expect(jsons.size).toBeGreaterThan(1000);
  });

  const all = [
    ...texts,
    ...SHAPES,
    ...SHAPES.flatMap((s) => [...texts].slice(0, 50).map((t) => `${t} ${s} ${t}`)),
    ...randomTexts(20_000),
  ];

  it.each(LEVELS)(
    'free text at level %s: the same answer as the rules alone, and no text they change skipped',
    (level) => {
      const rules = createRedactor({ fields: [], patterns: [], level }, { prescan: false });
      const screened = createRedactor({ fields: [], patterns: [], level });
      const mayMatch = builtinPreScan(level);
      let changed = 0;
      for (const s of all) {
        const want = rules.text(s);
        if (want !== s) {
          changed++;
          expect(mayMatch(s), s).toBe(true);
        }
        expect(screened.text(s), s).toBe(want);
      }
      // The corpus holds texts the rules change, or the test would hold nothing.
      expect(changed).toBeGreaterThan(SHAPES.length);
    },
  );

  const planted = [
    ...jsons,
    ...SHAPES.map((s) => JSON.stringify({ note: s, n: 1 })),
    // A secret key, a number that is a card once parsed, escapes that hide a shape from the text as sent.
    '{"password":"x"}',
    '{"n": 4.2e15}',
    '{"n": 4111111111111111}',
    '{"u": "https:\\/\\/app:hunter2@db.internal\\/x"}',
    '{"t": "\\u0065yJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc"}',
    '[["X-Api-Key", "abc"]]',
    '{"name": "authorization", "value": "abc"}',
  ];

  it.each(LEVELS)('JSON values at level %s: kept as sent only when the rules change nothing', (level) => {
    const rules = createRedactor({ fields: [], patterns: [], level }, { prescan: false });
    const mayMatch = builtinPreScan(level);
    let changed = 0;
    for (const raw of planted) {
      const parsed = JSON.parse(raw);
      if (rules.masked(parsed) !== parsed) {
        changed++;
        expect(mayMatchJson(raw, mayMatch), raw).toBe(true);
      }
    }
    expect(changed).toBeGreaterThan(SHAPES.length);
    // What the store keeps is the same with the pre-scan as without.
    const stored = storeRedactor(level);
    for (const raw of planted) {
      const r = stored.json(raw);
      const want = rules.masked(JSON.parse(raw));
      expect(r.ok && JSON.parse(r.value), raw).toEqual(want);
    }
  });

  it('a configured field path or pattern turns the JSON shortcut off', () => {
    expect(createRedactor({ fields: ['city'], patterns: [] }).mayChangeJson('{"city":"Brno"}')).toBe(true);
    expect(createRedactor({ fields: [], patterns: ['Brno'] }).mayChangeJson('{"city":"Brno"}')).toBe(true);
    expect(createRedactor({ fields: [], patterns: [] }).mayChangeJson('{"city":"Brno"}')).toBe(false);
    // …and a configured pattern still applies to a text the built-in rules skip.
    expect(createRedactor({ fields: [], patterns: ['Brno'] }).text('to Brno')).toBe('to [REDACTED]');
  });

  it('finds a run of 40 base64 characters wherever it is, as a character-by-character scan does', () => {
    const naive = (s: string) => /[A-Za-z0-9/+]{40}/.test(s);
    const alphabet = 'aB3/+ .-_\u00e9';
    let seed = 7;
    for (let n = 0; n < 5000; n++) {
      let s = '';
      const len = n % 200;
      for (let i = 0; i < len; i++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        // Long runs of base64 characters broken now and then, so runs of about 40 are common.
        s += seed % 50 === 0 ? alphabet[5 + (seed % 5)] : alphabet[seed % 5];
      }
      expect(hasLongBase64Run(s), s).toBe(naive(s));
    }
    expect(hasLongBase64Run(`${'x '.repeat(30)}${'A'.repeat(40)}`)).toBe(true);
    expect(hasLongBase64Run(`${'A'.repeat(39)} ${'A'.repeat(39)}`)).toBe(false);
  });
});
