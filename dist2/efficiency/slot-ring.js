/**
 * The tracker's eviction queue: slots in the order they were queued, each with the generation it had
 * then, in a ring of typed arrays (no object per entry). A slot freed and reused since it was queued
 * has a newer generation, so its old entry is stale and skipped; `live` says whether an entry still
 * stands. The ring grows by compacting: stale entries dropped, room made for as many again.
 */
export class SlotRing {
    firstCapacity;
    live;
    slot = new Int32Array(0);
    gen = new Int32Array(0);
    head = 0;
    length = 0;
    constructor(firstCapacity, live) {
        this.firstCapacity = firstCapacity;
        this.live = live;
    }
    push(slot, gen) {
        if (this.length === this.slot.length)
            this.compact();
        const at = (this.head + this.length) % this.slot.length;
        this.slot[at] = slot;
        this.gen[at] = gen;
        this.length++;
    }
    /** The slot queued longest ago that is still in use (stale entries skipped); -1 when none. */
    shift() {
        while (this.length > 0) {
            const at = this.head;
            this.head = (at + 1) % this.slot.length;
            this.length--;
            const slot = this.slot[at];
            if (this.live(slot, this.gen[at]))
                return slot;
        }
        return -1;
    }
    /** Drops stale entries (slots freed since they were queued) and makes room for at least as many again. */
    compact() {
        const live = [];
        const gens = [];
        for (let k = 0; k < this.length; k++) {
            const at = (this.head + k) % this.slot.length;
            const slot = this.slot[at];
            if (this.live(slot, this.gen[at])) {
                live.push(slot);
                gens.push(this.gen[at]);
            }
        }
        const size = Math.max(this.firstCapacity, live.length * 2, this.slot.length);
        this.slot = new Int32Array(size);
        this.gen = new Int32Array(size);
        this.slot.set(live);
        this.gen.set(gens);
        this.head = 0;
        this.length = live.length;
    }
}
//# sourceMappingURL=slot-ring.js.map