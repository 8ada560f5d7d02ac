// Exactly once across processes (issue 8):
// - ledger_batches: what each committed batch took for one-call-one-count — its tool-bearing spans and
//   the calls it counted (src/pipeline/ledger-journal.ts) — written in the batch's own transaction and
//   loaded when a process starts, so a batch resent after a crash, or a tool span whose proposal the
//   previous process counted, is recognised. One compact row per batch, pruned to dedupe.trace_ttl and
//   about twice dedupe.max_traces traces.
// - pending_calls.owner and pending_owners: the process holding a waiting call, under a lease it renews
//   (src/pipeline/pending-owner.ts), so exactly one process counts each, with any number of replicas.
//   Rows from before have no owner: the first process to start takes them.
const tables = (t) => `
    CREATE TABLE ledger_batches (
      id ${t.id}, time_ms ${t.bigint} NOT NULL, traces INTEGER NOT NULL, body TEXT NOT NULL
    );
    CREATE TABLE pending_owners (
      owner TEXT PRIMARY KEY, lease_until ${t.bigint} NOT NULL, started_ms ${t.bigint} NOT NULL
    )${t.without};
    ALTER TABLE pending_calls ADD COLUMN owner TEXT;
`;
export const exactlyOnce = {
    version: 8,
    name: 'the dedupe memory per batch, owners of waiting calls',
    sqlite: tables({ id: 'INTEGER PRIMARY KEY', bigint: 'INTEGER', without: ' WITHOUT ROWID' }),
    postgres: tables({ id: 'BIGSERIAL PRIMARY KEY', bigint: 'BIGINT', without: '' }),
};
//# sourceMappingURL=008-exactly-once.js.map