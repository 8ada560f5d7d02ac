/**
 * How long a server asks us to wait: `retry-after-ms` (OpenAI and Azure send it), then `Retry-After`
 * as delay-seconds or an HTTP date (RFC 9110 §10.2.3). Every sender of toolwatch reads it here.
 */
const NUMBER = /^\d+(\.\d+)?$/;
function header(headers, name) {
    if (!headers)
        return undefined;
    if (typeof headers.get === 'function')
        return headers.get(name)?.trim() || undefined;
    const v = headers[name];
    return (Array.isArray(v) ? v[0] : v)?.trim() || undefined;
}
/** The wait in ms from nowMs; undefined when no header says one (or it cannot be read). A date in the past is 0. */
export function parseRetryAfter(headers, nowMs) {
    const ms = header(headers, 'retry-after-ms');
    if (ms !== undefined && NUMBER.test(ms))
        return Math.round(Number(ms));
    const v = header(headers, 'retry-after');
    if (v === undefined)
        return undefined;
    if (NUMBER.test(v))
        return Math.round(Number(v) * 1000);
    if (/^[+-]?[\d.]+$/.test(v))
        return undefined; // a number, but not delay-seconds (Date.parse would take it for a year)
    const at = Date.parse(v);
    return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
//# sourceMappingURL=retry-after.js.map