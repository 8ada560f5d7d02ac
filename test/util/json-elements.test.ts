/**
 * eachArrayElement (src/util/json-elements.ts) cuts a JSON array text into its elements' texts
 * without parsing: for every valid array each cut parses to the element JSON.parse gives, and a
 * text cut short or broken stops the walk where the damage starts.
 */
import { describe, expect, it } from 'vitest';
import { eachArrayElement } from '../../src/util/json-elements.js';

const cut = (s: string, maxElementChars?: number): { opened: boolean; texts: string[] } => {
  const texts: string[] = [];
  const opened = eachArrayElement(s, (t) => (texts.push(t), false), maxElementChars);
  return { opened, texts };
};

const VALID: unknown[][] = [
  [],
  [1, -2.5e3, true, false, null],
  ['a', 'with "quotes" and \\ backslash', 'brackets ] [ } { , inside', '\u00e9\u4e2d'],
  [{ role: 'user', parts: [{ type: 'text', content: 'hi ] }' }] }, [1, [2, [3]]], {}, []],
  [{ a: { b: { c: '}' } } }, 'x'],
];

describe('eachArrayElement', () => {
  it.each(VALID.map((v) => [JSON.stringify(v), v] as const))('%s: every element, in order', (_, value) => {
    for (const text of [
      JSON.stringify(value),
      JSON.stringify(value, null, 2),
      ` \n${JSON.stringify(value, null, '\t')}\r\n`,
    ]) {
      const { opened, texts } = cut(text);
      expect(opened).toBe(true);
      expect(texts.map((t) => JSON.parse(t))).toEqual(value);
    }
  });

  it('stops when told to', () => {
    const seen: string[] = [];
    eachArrayElement('[1,2,3]', (t) => (seen.push(t), t === '2'));
    expect(seen).toEqual(['1', '2']);
  });

  it('says so when the text is no array, and calls nothing', () => {
    for (const s of ['', '   ', '{"a":[1]}', '"[1]"', 'null', 'x[1]'])
      expect(cut(s)).toEqual({ opened: false, texts: [] });
  });

  it('a text cut short: each element once what closes it is in, never a part of one', () => {
    const elements = [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'a long answer' }, 12345];
    const full = JSON.stringify(elements);
    const closes = [full.indexOf('},') + 1, full.lastIndexOf('},') + 1, full.length - 1];
    for (let n = 1; n < full.length; n++) {
      const { texts } = cut(full.slice(0, n));
      expect(texts.length, full.slice(0, n)).toBe(
        closes.filter((c) => c <= n && (c < full.length - 1 || n > c)).length,
      );
      for (const [k, t] of texts.entries()) expect(JSON.parse(t)).toEqual(elements[k]);
    }
  });

  it('an unclosed string or an escaped closing quote does not end an element', () => {
    expect(cut('["abc\\"').texts).toEqual([]);
    expect(cut('[{"a":"b\\"}').texts).toEqual([]);
    expect(cut('["a\\\\", 2]').texts.map((t) => JSON.parse(t))).toEqual(['a\\', 2]);
  });

  it('stops at anything but a comma between elements, and at an element longer than the bound', () => {
    expect(cut('[{"a":1} x, {"b":2}]').texts).toEqual(['{"a":1}']);
    expect(cut('[{"a":1}, {"b":22}]', 7).texts).toEqual(['{"a":1}']);
  });
});
