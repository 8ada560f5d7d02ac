/** compareText (src/util/compare-text.ts): the code-unit order the stores' writers sort keys by. */
import { describe, expect, it } from 'vitest';
import { compareText } from '../../src/util/compare-text.js';

describe('compareText', () => {
  const cases: [string, string, number][] = [
    ['a', 'a', 0],
    ['', 'a', -1],
    ['B', 'a', -1], // code units, not a locale: upper case first
    ['z', 'é', -1],
    ['ab', 'a', 1],
    ['\u{1F600}', '\uFFFF', -1], // a surrogate pair sorts by its first code unit (0xD83D)
  ];
  it.each(cases)('%j vs %j → %d', (a, b, want) => {
    expect(compareText(a, b)).toBe(want);
    expect(compareText(b, a)).toBe(-want || 0);
  });
  it('sorts as the default sort does', () => {
    const words = ['tool_b', 'Tool_a', 'tool_a', 'ä', 'z', '', 'tool_a'];
    expect([...words].sort(compareText)).toEqual([...words].sort());
  });
});
