/** Slots written once and never replaced; `latest` is not one. */
export const isOnceSlot = (slot) => slot !== 'latest';
export const rowKey = (service, id) => `${service}\u0000${id}`;
export const slotKey = (service, id, slot) => `${service}\u0000${id}\u0000${slot}`;
export class KnownRows {
    max;
    slots = new Set();
    rows = new Set();
    carried = new WeakMap();
    constructor(max = 100_000) {
        this.max = max;
    }
    hasSlot(key) {
        return this.slots.has(key);
    }
    hasRow(service, id) {
        return this.rows.has(rowKey(service, id));
    }
    carry(write, what) {
        if (what.slots.length > 0 || what.rows.length > 0)
            this.carried.set(write, what);
    }
    /** The write committed: its once-slots are stored; returns the signatures to look up. */
    committed(write) {
        const what = this.carried.get(write);
        if (!what)
            return [];
        this.carried.delete(write);
        add(this.slots, what.slots, this.max);
        return what.rows.filter((r) => !this.rows.has(rowKey(r.service, r.id)));
    }
    /** Signatures whose own rows a read found stored. */
    seen(rows) {
        add(this.rows, rows.map((r) => rowKey(r.service, r.id)), this.max);
    }
}
function add(set, keys, max) {
    if (set.size + keys.length > max)
        set.clear();
    for (const k of keys)
        set.add(k);
}
//# sourceMappingURL=known-rows.js.map