export class Lru {
    maxChars;
    map = new Map();
    chars = 0;
    maxEntries;
    constructor(maxEntries, maxChars) {
        this.maxChars = maxChars;
        // The entry being added always stays, so eviction ends only if at least one entry is allowed.
        this.maxEntries = Math.max(1, maxEntries);
    }
    get(key) {
        const e = this.map.get(key);
        if (e === undefined)
            return undefined;
        e.used = true;
        return e.value;
    }
    set(key, value) {
        if (key.length > this.maxChars)
            return;
        const old = this.map.get(key);
        if (old !== undefined) {
            old.value = value;
            return;
        }
        this.map.set(key, { value, used: false });
        this.chars += key.length;
        this.evict(key);
    }
    evict(keep) {
        while (this.map.size > this.maxEntries || this.chars > this.maxChars) {
            const oldest = this.map.entries().next();
            if (oldest.done)
                return;
            const [k, e] = oldest.value;
            this.map.delete(k);
            if (k === keep || e.used) {
                // Second chance: recently hit entries (and the one being added) go to the back instead of out.
                e.used = false;
                this.map.set(k, e);
            }
            else {
                this.chars -= k.length;
            }
        }
    }
    get size() {
        return this.map.size;
    }
    clear() {
        this.map.clear();
        this.chars = 0;
    }
}
//# sourceMappingURL=lru.js.map