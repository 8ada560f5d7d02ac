/**
 * Text both stores keep as it is: PostgreSQL's TEXT refuses U+0000 (the whole batch would fail, and
 * its exporter retry forever), and a lone UTF-16 surrogate has no UTF-8 form — each driver replaces
 * it differently (one U+FFFD in pg, three in better-sqlite3), so keys written and later matched would
 * disagree between engines. Both become U+FFFD here, before any string from a span reaches SQL.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what is searched for
const SUSPECT = /[\u0000\ud800-\udfff]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what is searched for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
export function storableText(s) {
    return SUSPECT.test(s) ? s.replace(UNSTORABLE, '\ufffd') : s;
}
//# sourceMappingURL=storable-text.js.map