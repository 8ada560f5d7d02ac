/**
 * The pre-scan before the built-in rules (src/redact/rules.ts): one pass that says whether any of
 * them could match a text at all. Most stored text holds nothing to mask, and each rule's own scan,
 * run one after another, costs a fixed setup per rule besides its characters — so a text that fails
 * this test skips them all. Each built-in rule states beside itself what every match of it holds
 * (its trigger); the pre-scan joins the triggers of the rules a redactor applies into one
 * case-insensitive expression (a superset of what the rules match), plus the tests no expression
 * does cheaply. It must never say "nothing" where a rule would mask something:
 * test/redact/prescan.test.ts holds the redactor to the rules run without it.
 */

/** What every match of a rule holds: an expression's source (matched case-insensitively), or a test. */
export type Trigger = string | ((s: string) => boolean);

/** Whether some rule with one of these triggers could match the text. */
export function preScan(triggers: readonly Trigger[]): (s: string) => boolean {
  const sources = triggers.filter((t): t is string => typeof t === 'string');
  const tests = triggers.filter((t): t is (s: string) => boolean => typeof t === 'function');
  const re = sources.length > 0 ? new RegExp(sources.map((t) => `(?:${t})`).join('|'), 'i') : /(?!)/;
  return (s) => re.test(s) || tests.some((t) => t(s));
}

/**
 * A number written with an exponent: parsed JSON holds it as a number, and an integer of 13 or more
 * digits is masked as a card (`4.2e15` is 4200000000000000, which passes Luhn) though the text has
 * no run of 13 digits.
 */
const EXPONENT = /\d[eE][+-]?\d/;

/**
 * Whether masking this JSON text value by value could change anything, for a redactor without
 * configured field paths or patterns whose text pre-scan is `mayMatch`. Its strings, keys and
 * numbers are all in the text as written unless it escapes a character (`\u0065yJ`, `:\/\/`), so a
 * text with a backslash answers yes. A key masks its value for being a secret's name: the
 * `key=value` rule's trigger finds those names (both are SECRET_KEY_CANDIDATE, secret-keys.ts).
 */
export function mayMatchJson(raw: string, mayMatch: (s: string) => boolean): boolean {
  return raw.includes('\\') || EXPONENT.test(raw) || mayMatch(raw);
}

/** 1 for the characters of an AWS secret key's run (A–Z, a–z, 0–9, + and /), by char code below 128. */
const BASE64 = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') BASE64[c.charCodeAt(0)] = 1;

const base64At = (s: string, i: number): boolean => {
  const c = s.charCodeAt(i);
  return c < 128 && BASE64[c] === 1;
};

/**
 * Whether the text has a run of at least 40 base64 characters (the AWS secret rule's trigger: as an
 * alternative of the expression it tripled the scan). It reads the last character of the next window
 * a run could fill and walks back: a character outside the set moves the window past it, so prose (a
 * space every few characters) is read a fraction of its length, and no character is read twice
 * unless the run is found.
 */
export function hasLongBase64Run(s: string): boolean {
  let start = 0;
  for (let end = 39; end < s.length; end = start + 39) {
    let i = end;
    while (i >= start && base64At(s, i)) i--;
    if (i < start) return true;
    start = i + 1;
  }
  return false;
}
