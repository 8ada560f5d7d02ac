/**
 * A prom-client Histogram whose hot-path observations go through children bound once to their label
 * values. prom-client's own children (`labels(…).observe(v)`) validate and hash the labels again on
 * every observation; the ingest path observes a tool execution's duration per tool span and five
 * trajectory histograms per finished trace, which made those hashes ~1.5 % of the ingest CPU.
 *
 * A bound child keeps its bucket counts, sum and count itself; a scrape (`getForPromString`, which
 * the Registry reads for the text format and prom-client's `get` builds the JSON from) adds them to
 * what the histogram holds otherwise, in prom-client's own value format, so the exposition is the same. A label set is observed either through
 * `bind` or through the inherited `observe`/`labels`, never both (two series with the same labels).
 */
import client from 'prom-client';
export class BoundHistogram extends client.Histogram {
    bound = new Map();
    bounds;
    metricName;
    constructor(config) {
        super(config);
        this.bounds = [...config.buckets].sort((a, b) => a - b);
        this.metricName = config.name;
    }
    /** The child for these label values, created once; its observe is a bucket search and three adds. */
    bind(labels) {
        const key = JSON.stringify(Object.keys(labels)
            .sort()
            .map((k) => [k, labels[k]]));
        let child = this.bound.get(key);
        if (!child) {
            const bounds = this.bounds;
            const state = {
                labels: { ...labels },
                counts: new Float64Array(bounds.length + 1),
                sum: 0,
                count: 0,
                observe(value) {
                    if (!Number.isFinite(value))
                        throw new TypeError(`Value is not a valid number: ${value}`);
                    let i = 0;
                    while (i < bounds.length && value > bounds[i])
                        i++;
                    state.counts[i]++;
                    state.sum += value;
                    state.count++;
                },
            };
            child = state;
            this.bound.set(key, child);
        }
        return child;
    }
    reset() {
        super.reset();
        // prom-client's constructor calls reset() before this class's fields exist.
        for (const c of this.bound?.values() ?? []) {
            c.counts.fill(0);
            c.sum = 0;
            c.count = 0;
        }
    }
    async getForPromString() {
        const data = await client.Histogram.prototype.getForPromString.call(this);
        data.values.push(...this.boundValues());
        return data;
    }
    /** As prom-client lays a histogram's series out: cumulative buckets, +Inf, sum, count; labels shared. */
    boundValues() {
        const out = [];
        for (const c of this.bound.values()) {
            if (c.count === 0)
                continue;
            let acc = 0;
            for (let i = 0; i < this.bounds.length; i++) {
                acc += c.counts[i];
                out.push({
                    labels: { le: this.bounds[i] },
                    sharedLabels: c.labels,
                    value: acc,
                    metricName: `${this.metricName}_bucket`,
                    exemplar: null,
                });
            }
            out.push({
                labels: { le: '+Inf' },
                sharedLabels: c.labels,
                value: c.count,
                metricName: `${this.metricName}_bucket`,
                exemplar: null,
            });
            out.push({ labels: {}, sharedLabels: c.labels, value: c.sum, metricName: `${this.metricName}_sum` });
            out.push({ labels: {}, sharedLabels: c.labels, value: c.count, metricName: `${this.metricName}_count` });
        }
        return out;
    }
}
//# sourceMappingURL=bound-histogram.js.map