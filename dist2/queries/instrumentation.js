import { isRestricted } from '../util/service-view.js';
/**
 * `service` keeps that service's rows only; a reader restricted to some services sees theirs only.
 * The folded `_other` row mixes services, so it is shown only to an unfiltered, unrestricted reader.
 */
export function instrumentationReport(read, q = {}) {
    const src = read.coverage;
    const o = src.tracker.options;
    const view = read.view;
    return {
        countsSince: 'process start',
        since: new Date(src.sinceMs).toISOString(),
        limits: { rows: o.maxEntries, keysPerRow: o.keysPerEntry, topKeys: o.topKeys },
        scopes: src.tracker.report({
            ...(q.service !== undefined ? { service: q.service } : {}),
            ...(isRestricted(view) ? { sees: (s) => view.sees(s) } : {}),
        }),
    };
}
//# sourceMappingURL=instrumentation.js.map