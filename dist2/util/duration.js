const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
/** The one duration syntax: Prometheus-style '30s', '5m', '24h', '1.5h', '250ms'. */
export const DURATION_PATTERN = DURATION.source;
/** The JSON Schema of a duration; every config key and query parameter that takes one uses it. */
export const durationSchema = { type: 'string', pattern: DURATION_PATTERN };
/** What a schema error on a duration says. */
export const DURATION_PROBLEM = 'must be a duration such as 30s, 5m, 24h';
/** Parses a duration into milliseconds; undefined when it is not one. */
export function parseDuration(text) {
    const m = DURATION.exec(text.trim());
    if (!m)
        return undefined;
    return Math.round(Number(m[1]) * UNITS[m[2]]);
}
/** For a string the schema already checked. */
export function durationMs(text) {
    const ms = parseDuration(text);
    if (ms === undefined)
        throw new Error(`not a duration: ${JSON.stringify(text)}`);
    return ms;
}
export function formatDuration(ms) {
    for (const unit of ['d', 'h', 'm', 's']) {
        const size = UNITS[unit];
        if (ms >= size && ms % size === 0)
            return `${ms / size}${unit}`;
    }
    return `${ms}ms`;
}
//# sourceMappingURL=duration.js.map