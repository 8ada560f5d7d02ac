/**
 * Service-name globs (auth.tokens[].services): `*` matches any run of characters (also none), `?`
 * exactly one, everything else itself, case-sensitively. One meaning, three forms: a RegExp for
 * values in memory, SQLite GLOB and PostgreSQL LIKE patterns for rows in the store.
 */
/** One RegExp matching a value any of the globs matches. */
export function globsRegExp(globs) {
    if (globs.length === 0)
        return /(?!)/;
    const one = (g) => [...g]
        .map((c) => (c === '*' ? '[\\s\\S]*' : c === '?' ? '[\\s\\S]' : c.replace(/[.+^${}()|[\]\\/]/g, '\\$&')))
        .join('');
    return new RegExp(`^(?:${globs.map(one).join('|')})$`, 'u');
}
/** SQLite GLOB: `*` and `?` as ours; `[` opens a character class there, so a literal one is `[[]`. */
export function sqliteGlob(glob) {
    return glob.replace(/\[/g, '[[]');
}
/** PostgreSQL LIKE with ESCAPE '\': `*` → `%`, `?` → `_`, and the characters LIKE treats specially escaped. */
export function likePattern(glob) {
    return [...glob]
        .map((c) => (c === '*' ? '%' : c === '?' ? '_' : c === '%' || c === '_' || c === '\\' ? `\\${c}` : c))
        .join('');
}
//# sourceMappingURL=glob.js.map