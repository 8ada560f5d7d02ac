/** Model spans remembered for records that arrive after them. */
export const MAX_REMEMBERED_SPANS = 20_000;
export class LogJoin {
    max;
    spans = new Map();
    constructor(max = MAX_REMEMBERED_SPANS) {
        this.max = max;
    }
    /** Called for every batch of span facts: remembers its model spans that carry no calls themselves. */
    remember(facts) {
        for (const f of facts) {
            if (f.role !== 'model' || f.claimId !== undefined || f.proposals.length > 0 || f.model === undefined)
                continue;
            const key = `${f.traceId}\u0000${f.spanId}`;
            this.spans.delete(key);
            this.spans.set(key, { model: f.model, offered: f.offered });
            if (this.spans.size > this.max)
                this.spans.delete(this.spans.keys().next().value);
        }
    }
    /** Facts read from log records: their claim id, and their span's model, or a wait for it. */
    join(f, claimId) {
        f.claimId = claimId;
        const s = this.spans.get(`${f.traceId}\u0000${f.spanId}`);
        if (s) {
            f.model ??= s.model;
            if (s.offered !== undefined)
                f.offered ??= s.offered;
        }
        else if (f.model === undefined && f.proposals.length > 0) {
            f.awaitsSpan = true;
        }
    }
    get size() {
        return this.spans.size;
    }
}
//# sourceMappingURL=log-join.js.map