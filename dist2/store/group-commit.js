export class GroupCommit {
    engine;
    queue = [];
    inFlight = 0;
    scheduled = false;
    flushing = null;
    closed = false;
    constructor(engine) {
        this.engine = engine;
    }
    write(batch) {
        if (this.closed)
            return Promise.reject(new Error('store is closed'));
        return new Promise((resolve, reject) => {
            this.queue.push({ batch, resolve, reject });
            this.schedule();
        });
    }
    /** Batches accepted and not yet committed (or failed). */
    pendingWrites() {
        return this.queue.length + this.inFlight;
    }
    /** Refuses new batches and commits what was accepted: the group in flight, then what queued behind it. */
    async close() {
        this.closed = true;
        while (this.flushing || this.queue.length > 0) {
            if (this.flushing)
                await this.flushing;
            else
                await (this.flushing = this.flush().finally(() => (this.flushing = null)));
        }
    }
    /** At most one group in flight: what arrives meanwhile waits and goes into the next group. */
    schedule() {
        if (this.scheduled || this.flushing || this.queue.length === 0)
            return;
        this.scheduled = true;
        setImmediate(() => {
            this.scheduled = false;
            if (this.flushing || this.queue.length === 0)
                return;
            this.flushing = this.flush().finally(() => {
                this.flushing = null;
                this.schedule();
            });
        });
    }
    async flush() {
        const items = this.queue;
        this.queue = [];
        this.inFlight = items.length;
        const settle = (it, err) => {
            this.inFlight--;
            if (err)
                it.reject(err);
            else
                it.resolve();
        };
        const refused = this.engine.refusal?.();
        if (refused) {
            for (const it of items)
                settle(it, refused);
            return;
        }
        try {
            await this.engine.commit(items.map((it) => it.batch));
            for (const it of items)
                settle(it);
        }
        catch (groupErr) {
            if (items.length === 1 || !this.engine.mayBeOneBatchsFault(groupErr)) {
                for (const it of items)
                    settle(it, groupErr);
                return;
            }
            for (const it of items) {
                try {
                    await this.engine.commit([it.batch]);
                    settle(it);
                }
                catch (err) {
                    settle(it, err);
                }
            }
        }
    }
}
//# sourceMappingURL=group-commit.js.map