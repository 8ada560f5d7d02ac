/** At most this many failures and recoveries are kept per trace for its repair turns. */
const MAX_REPAIR_EVENTS = 256;
export class RepairEvents {
    /** Failures and what came after them, from a trace's first failure on. */
    bySlot = [];
    /** Traces with repair events: executions that succeed are looked up only while there are any. */
    holding = 0;
    /** Whether any trace holds repair events. */
    get any() {
        return this.holding !== 0;
    }
    of(slot) {
        return this.bySlot[slot];
    }
    add(slot, kind, failed, timeMs, tool, service, model, problemId) {
        let list = this.bySlot[slot];
        if (!list) {
            this.bySlot[slot] = list = [];
            this.holding++;
        }
        // Bounded: a trace that fails without end keeps its first failures and what came after them.
        if (list.length < MAX_REPAIR_EVENTS)
            list.push({ kind, failed, timeMs, tool, service, model, problemId });
    }
    /** Forgets a freed slot's events. */
    clear(slot) {
        if (this.bySlot[slot]) {
            this.bySlot[slot] = undefined;
            this.holding--;
        }
    }
}
//# sourceMappingURL=repair-events.js.map