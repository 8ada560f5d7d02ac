export class SqliteSql {
    db;
    dialect = 'sqlite';
    cache = new Map();
    /** Transactions of this process, one after another (SQLite has one per connection). */
    txChain = Promise.resolve();
    /** Inside a transaction the port itself: BEGIN is not nested. */
    inTx = {
        dialect: 'sqlite',
        all: (s, p) => this.all(s, p),
        run: (s, p) => this.run(s, p),
        tx: (fn) => fn(this.inTx),
    };
    /** Synchronous, for batch extensions inside the store's own (synchronous) transaction. */
    batchTx = { run: (s, p = []) => void this.changes(s, p) };
    constructor(db) {
        this.db = db;
    }
    stmt(sql) {
        let s = this.cache.get(sql);
        if (!s)
            this.cache.set(sql, (s = this.db.prepare(sql)));
        return s;
    }
    changes(sql, params) {
        const s = this.stmt(sql);
        return s.reader ? (s.all(...params), 0) : s.run(...params).changes;
    }
    async all(sql, params = []) {
        return this.stmt(sql).all(...params);
    }
    async run(sql, params = []) {
        return this.changes(sql, params);
    }
    tx(fn) {
        const run = this.txChain.then(async () => {
            this.db.exec('BEGIN IMMEDIATE');
            try {
                const v = await fn(this.inTx);
                this.db.exec('COMMIT');
                return v;
            }
            catch (err) {
                if (this.db.inTransaction)
                    this.db.exec('ROLLBACK');
                throw err;
            }
        });
        this.txChain = run.catch(() => undefined);
        return run;
    }
}
//# sourceMappingURL=sqlite-sql.js.map