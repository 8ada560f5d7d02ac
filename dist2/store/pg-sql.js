import { withTransaction } from './pg-transaction.js';
import { toPg } from './sql.js';
export class PgSql {
    q;
    connect;
    dialect = 'postgres';
    constructor(q, connect) {
        this.q = q;
        this.connect = connect;
    }
    async all(sql, params = []) {
        return (await this.q.query(toPg(sql), params)).rows;
    }
    async run(sql, params = []) {
        return (await this.q.query(toPg(sql), params)).rowCount ?? 0;
    }
    async tx(fn) {
        if (!this.connect)
            return fn(this); // already a transaction's client
        return withTransaction(await this.connect(), (client) => fn(new PgSql(client)));
    }
}
//# sourceMappingURL=pg-sql.js.map