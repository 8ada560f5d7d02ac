/**
 * The pre-scan before the built-in rules (src/redact/redact.ts): one pass that says whether any of
 * them could match a text at all. Most stored text holds nothing to mask, and each rule's own scan,
 * run one after another, costs a fixed setup per rule besides its characters — so a text that fails
 * this test skips them all. It must never say "nothing" where a rule would mask something:
 * test/redact/prescan.test.ts checks that every text the rules change passes it.
 *
 * Why each alternative is enough (what every match of the rule holds):
 * - the literal-prefixed rules (PEM and PGP blocks, JWTs, webhook and DSN URLs, signed URLs,
 *   Authorization schemes, provider keys): their prefix, matched case-insensitively (a superset);
 * - `key=value` for a secret key, and a secret key in parsed JSON or a `{name, value}` pair: one of
 *   the words every secret key holds (src/redact/secret-keys.ts, `CANDIDATE`);
 * - card numbers: 13 digits with at most one space or dash between two;
 * - AWS secret keys: a run of 40 base64 characters (hasLongBase64Run, a loop: as an alternative of
 *   the expression it tripled the scan);
 * - at level `pii`, emails: `@`; phone numbers: 9 digits with at most two of `\s.()+-` between two
 *   (a number is masked with 9–15 digits, and `(555) 123` puts `) ` between two).
 */
const SECRET_TRIGGER =
  /-----BEGIN |eyJ|:\/\/|[?&](?:sig|signature|x-amz-signature|x-goog-signature)=|bearer|basic|token|sk-|gh[pousr]_|github_pat_|glpat-|xox[abposre]-|xapp-|aiza|ya29\.|[rs]k_(?:live|test)_|hf_|npm_|akia|asia|pass|pw|secret|key|cred|auth|cookie|otp|cv[vc]|\d(?:[ -]?\d){12}/i;

const PII_TRIGGER = /@|\d(?:[\s.()+-]{0,2}\d){8}/;

/**
 * A number written with an exponent: parsed JSON holds it as a number, and an integer of 13 or more
 * digits is masked as a card (`4.2e15` is 4200000000000000, which passes Luhn) though the text has
 * no run of 13 digits.
 */
const EXPONENT = /\d[eE][+-]?\d/;

/** 1 for the characters of an AWS secret key's run (A–Z, a–z, 0–9, + and /), by char code below 128. */
const BASE64 = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') BASE64[c.charCodeAt(0)] = 1;

const base64At = (s: string, i: number): boolean => {
  const c = s.charCodeAt(i);
  return c < 128 && BASE64[c] === 1;
};

/**
 * Whether the text has a run of at least 40 base64 characters. It reads the last character of the
 * next window a run could fill and walks back: a character outside the set moves the window past it,
 * so prose (a space every few characters) is read a fraction of its length, and no character is read
 * twice unless the run is found.
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

/** Whether some built-in rule could change this text (`pii`: the rules for personal data too). */
export function mayMatch(s: string, pii: boolean): boolean {
  return SECRET_TRIGGER.test(s) || (pii && PII_TRIGGER.test(s)) || hasLongBase64Run(s);
}

/**
 * Whether masking this JSON text value by value could change anything, for a redactor without
 * configured field paths or patterns. Its strings, keys and numbers are all in the text as written
 * unless it escapes a character (`\u0065yJ`, `:\/\/`), so a text with a backslash answers yes.
 */
export function mayMatchJson(raw: string, pii: boolean): boolean {
  return raw.includes('\\') || EXPONENT.test(raw) || mayMatch(raw, pii);
}
