/** regexpLiteral: a pattern that matches exactly the string it was made from, specials included. */
import { describe, expect, it } from 'vitest';
import { regexpLiteral } from '../../src/util/regexp-literal.js';

describe('regexpLiteral', () => {
  it.each([
    ['-----BEGIN ', '-----BEGIN '],
    ['://', '://'],
    ['a.b', 'a.b'],
    ['sk-(1)*[x]{2}?+^$|\\', 'sk-(1)*[x]{2}?+^$|\\'],
  ])('%s matches itself and only itself', (literal, text) => {
    const re = new RegExp(`^${regexpLiteral(literal)}$`);
    expect(re.test(text)).toBe(true);
    expect(re.test(`${text}x`)).toBe(false);
  });

  it('escapes what a pattern would read as syntax', () => {
    expect(regexpLiteral('a.b*c')).toBe('a\\.b\\*c');
    expect(new RegExp(regexpLiteral('a.b')).test('axb')).toBe(false);
  });
});
