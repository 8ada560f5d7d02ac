/**
 * A registry of named kinds (span dialects, alert rule kinds, notifier kinds), built per service
 * instance: register, get, list; registering a name twice throws. Order is registration order,
 * unless `before` names an entry the new one must precede (dialects: first match wins).
 */
export class Registry {
    what;
    entries = [];
    /** `what` names the kind in errors ("rule kind", "notifier kind", "dialect"). */
    constructor(what) {
        this.what = what;
    }
    register(name, item, options = {}) {
        if (this.get(name) !== undefined)
            throw new Error(`${this.what} ${name} is already registered`);
        const at = options.before === undefined ? -1 : this.entries.findIndex(([n]) => n === options.before);
        if (options.before !== undefined && at < 0)
            throw new Error(`${this.what} ${options.before} is not registered (asked to go before it: ${name})`);
        if (at >= 0)
            this.entries.splice(at, 0, [name, item]);
        else
            this.entries.push([name, item]);
        return this;
    }
    get(name) {
        return this.entries.find(([n]) => n === name)?.[1];
    }
    /** Names, in order. */
    list() {
        return this.entries.map(([n]) => n);
    }
    /** Entries, in order. */
    values() {
        return this.entries.map(([, v]) => v);
    }
}
//# sourceMappingURL=registry.js.map