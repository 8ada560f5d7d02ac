export function emptyBatch() {
    return {
        callAggregates: [],
        executionAggregates: [],
        failures: [],
        failureDrops: [],
        pendingAdd: [],
        pendingRemove: [],
        extensions: [],
    };
}
export const MINUTE_MS = 60_000;
export const minuteOf = (ms) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;
//# sourceMappingURL=store.js.map