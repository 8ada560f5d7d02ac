/**
 * Caps the distinct values a label may take, so no input can explode cardinality: the first
 * `max` values are kept, any later one becomes `_other`.
 *
 * The cap is shared by every team, so one token inventing names could use it up and turn every
 * other team's new service, tool or model into `_other` (issue 17, finding 4). A value asked for
 * under a budget (a service-restricted token's glob set: labelBudget) therefore also counts
 * against that budget's share, `perBudget` new values per label; past it that budget's new values
 * are `_other`, and the rest of the cap stays for everyone else. A value once admitted is free for
 * all. Unbudgeted values (unrestricted tokens, Langfuse) draw on the shared cap alone.
 *
 * Only metric labels are capped: what is stored (minute aggregates, failure records, problems,
 * executions, trajectories) keeps the real, clipped name, so a tenant that uses up its share or the
 * cap turns only the Prometheus labels of new names into `_other`, never another team's stored counts.
 */
export const OTHER = '_other';
export class LabelCap {
    max;
    onOverflow;
    perBudget;
    seen = new Map();
    /** New values admitted per budget and label (`budget \0 label`); as many keys as glob sets × labels. */
    spent = new Map();
    constructor(max, onOverflow = () => { }, perBudget = max) {
        this.max = max;
        this.onOverflow = onOverflow;
        this.perBudget = perBudget;
    }
    value(label, v, budget) {
        let set = this.seen.get(label);
        if (!set)
            this.seen.set(label, (set = new Set()));
        if (set.has(v))
            return v;
        if (set.size >= this.max) {
            this.onOverflow(label);
            return OTHER;
        }
        if (budget !== undefined) {
            const key = `${budget}\u0000${label}`;
            const used = this.spent.get(key) ?? 0;
            if (used >= this.perBudget) {
                this.onOverflow(label);
                return OTHER;
            }
            this.spent.set(key, used + 1);
        }
        set.add(v);
        return v;
    }
    /**
     * The label a value was given when it was asked for under its sender's budget (value()): itself
     * once admitted, else `_other`. Charges nothing: for a metric moved later than its value was labelled
     * (an execution's status settles after its tool span; a trajectory's service came from its calls).
     */
    peek(label, v) {
        return this.seen.get(label)?.has(v) ? v : OTHER;
    }
}
/** The label budget of a sender restricted to these service globs (undefined: unrestricted, no budget). */
export function labelBudget(globs) {
    return globs ? globs.join('\u0001') : undefined;
}
//# sourceMappingURL=label-cap.js.map