import { parseDuration } from './duration.js';
/**
 * `since` as a user would type it: a duration back from now ('15m', '24h'), an RFC 3339 time,
 * or epoch milliseconds. Returns undefined when it is none of these.
 */
export function parseSince(text, nowMs) {
    const ago = parseDuration(text);
    if (ago !== undefined)
        return nowMs - ago;
    if (/^\d{10,}$/.test(text))
        return Number(text);
    const t = Date.parse(text);
    return Number.isNaN(t) ? undefined : t;
}
//# sourceMappingURL=time-params.js.map