import { isUnstorable } from './unstorable.js';
export class WriteHealth {
    now;
    failure;
    constructor(now = Date.now) {
        this.now = now;
    }
    /** A batch write failed and no write succeeded since. */
    get failing() {
        return this.failure !== undefined;
    }
    succeeded() {
        this.failure = undefined;
    }
    failed(err) {
        // A batch refused for its own data says nothing about the store.
        if (isUnstorable(err))
            return;
        this.failure ??= { atMs: this.now(), error: err instanceof Error ? err.message : String(err) };
    }
    /** Resolves when writes work (re-checked with a write after a failure); rejects with why not. */
    async check(store) {
        const failure = this.failure;
        if (!failure)
            return store.ping();
        try {
            await (store.probeWrite ? store.probeWrite() : store.ping());
        }
        catch (err) {
            const since = new Date(failure.atMs).toISOString();
            throw new Error(`writes failing since ${since}: ${err.message || failure.error}`);
        }
        this.succeeded();
    }
}
//# sourceMappingURL=write-health.js.map