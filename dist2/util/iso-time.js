/**
 * ISO 8601 for a stored time, or null when it has none: `new Date(ms).toISOString()` throws a
 * RangeError beyond ±8.64e15 ms and for NaN, and one such row must not fail a whole list or page.
 */
export function isoTime(ms) {
    const d = new Date(ms);
    return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
//# sourceMappingURL=iso-time.js.map