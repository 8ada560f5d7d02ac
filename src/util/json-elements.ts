/**
 * The elements of a JSON array text, cut one at a time without parsing: a reader that needs only a
 * leading element (the system message's version, the first user message of a history that replays
 * the whole conversation on every model span) parses that element, not the rest.
 */

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(s: string, i: number): number {
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** The index just past the string whose opening quote is at `i`, or -1 when it is not closed before `end`. */
function pastString(s: string, i: number, end: number): number {
  for (i++; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

/**
 * Calls `each` with the text of each element of the JSON array `s`, in order, until it returns true.
 * The texts are cut, not checked: each may still fail to parse. An object or array element ends at
 * its matching bracket, a string at its closing quote, anything else before `,`, `]` or whitespace
 * (so the text's last element is not handed out without what closes it).
 * The walk stops at an element not closed within `maxElementChars`, and at anything but `,` after
 * an element. Returns false when `s` does not open an array (nothing was called).
 */
export function eachArrayElement(s: string, each: (text: string) => boolean, maxElementChars = s.length): boolean {
  let i = skipSpace(s, 0);
  if (s.charCodeAt(i) !== 0x5b) return false;
  i = skipSpace(s, i + 1);
  if (s.charCodeAt(i) === 0x5d) return true;
  for (;;) {
    const start = i;
    const end = Math.min(s.length, start + maxElementChars);
    const first = s.charCodeAt(i);
    if (first === 0x7b || first === 0x5b) {
      let depth = 0;
      for (; i < end; i++) {
        const c = s.charCodeAt(i);
        if (c === 0x22) {
          const past = pastString(s, i, end);
          if (past < 0) return true;
          i = past - 1;
        } else if (c === 0x7b || c === 0x5b) depth++;
        else if ((c === 0x7d || c === 0x5d) && --depth === 0) break;
      }
      if (i >= end) return true;
      i++;
    } else if (first === 0x22) {
      i = pastString(s, i, end);
      if (i < 0) return true;
    } else {
      while (i < end && !isSpace(s.charCodeAt(i)) && s.charCodeAt(i) !== 0x2c && s.charCodeAt(i) !== 0x5d) i++;
      // A number or literal the text ends in may be cut short: only one followed by something is whole.
      if (i >= end) return true;
    }
    if (each(s.slice(start, i))) return true;
    i = skipSpace(s, i);
    if (s.charCodeAt(i) !== 0x2c) return true;
    i = skipSpace(s, i + 1);
  }
}
