/**
 * ajv-formats' `url` format is a backtracking regular expression whose time grows with the square of
 * the input (about 0.6 s for 88 KB, and a call's arguments may be megabytes). Every other ajv-formats
 * regular expression was checked with a ReDoS analyser (recheck 4) and is linear or safe. This module
 * gives `url` the same meaning — the same expression with its three negative lookaheads (private IPv4
 * ranges) written out as explicit octet alternatives, which RE2 can run — on the linear-time engine.
 */
import { linearRegExp } from './linear-regexp.js';
const OCTET = '(?:1?\\d{1,2}|2[0-4]\\d|25[0-5])';
const LAST_OCTET = '(?:[1-9]\\d?|1\\d\\d|2[0-4]\\d|25[0-4])';
// First octets 1–223 but 10, 127, 169, 172 and 192, which are allowed only outside private ranges.
const FIRST_PUBLIC = '(?:[1-9]|1[1-9]|[2-9]\\d|1[013458]\\d|12[0-689]|16[0-8]|17[013-9]|19[013-9]|2[01]\\d|22[0-3])';
// The second octet after 169 (not 254), 172 (not 16–31) and 192 (not 168).
const IPV4 = [
    `${FIRST_PUBLIC}(?:\\.${OCTET}){2}`,
    `169\\.(?:1?\\d{1,2}|2[0-4]\\d|25[0-35])\\.${OCTET}`,
    `172\\.(?:\\d|0\\d|1[0-5]|3[2-9]|[4-9]\\d|1\\d\\d|2[0-4]\\d|25[0-5])\\.${OCTET}`,
    `192\\.(?:\\d{1,2}|1[0-57-9]\\d|16[0-79]|2[0-4]\\d|25[0-5])\\.${OCTET}`,
]
    .map((head) => `${head}\\.${LAST_OCTET}`)
    .join('|');
const LABEL = '(?:[a-z0-9\\u{00a1}-\\u{ffff}]+-)*[a-z0-9\\u{00a1}-\\u{ffff}]+';
const HOST = `${LABEL}(?:\\.${LABEL})*(?:\\.(?:[a-z\\u{00a1}-\\u{ffff}]{2,}))`;
/** The ajv-formats `url` pattern (flags iu), lookahead-free. */
export const URL_PATTERN = `^(?:https?|ftp):\\/\\/(?:\\S+(?::\\S*)?@)?(?:${IPV4}|${HOST})` + `(?::\\d{2,5})?(?:\\/[^\\s]*)?$`;
const url = linearRegExp(URL_PATTERN, 'iu');
/** Formats to add over ajv-formats' own, replacing the super-linear ones. */
export const linearFormats = {
    url: (s) => url.test(s),
};
//# sourceMappingURL=linear-formats.js.map