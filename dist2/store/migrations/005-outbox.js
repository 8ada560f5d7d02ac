// One outbox for everything sent later (src/store/outbox.ts): alert notifications (destination
// `alert:<notifier>`) and Langfuse scores (`langfuse:scores`) move in from their own tables. A
// message with a dedupe key is queued once while pending (Langfuse score ids).
const tables = (t) => `
    CREATE TABLE outbox (
      id ${t.serial}, destination TEXT NOT NULL, dedupe_key TEXT, created_ms ${t.bigint} NOT NULL,
      payload TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_ms ${t.bigint} NOT NULL, last_attempt_ms ${t.bigint}, done_ms ${t.bigint}, last_error TEXT
    );
    CREATE INDEX outbox_head ON outbox (destination, status, id);
    CREATE INDEX outbox_due ON outbox (destination, status, next_attempt_ms);
    CREATE UNIQUE INDEX outbox_pending_key ON outbox (destination, dedupe_key) WHERE status = 'pending' AND dedupe_key IS NOT NULL;
    CREATE TABLE outbox_destinations (destination TEXT PRIMARY KEY, ready_at_ms ${t.bigint} NOT NULL);
    INSERT INTO outbox (destination, dedupe_key, created_ms, payload, status, attempts, next_attempt_ms, last_attempt_ms, done_ms, last_error)
      SELECT 'alert:' || notifier, NULL, created_ms, message, status, attempts, next_attempt_ms, last_attempt_ms, done_ms, last_error
      FROM alert_outbox ORDER BY id;
    INSERT INTO outbox (destination, dedupe_key, created_ms, payload, status, attempts, next_attempt_ms)
      SELECT 'langfuse:scores', id, created_ms, body, 'pending', attempts, next_ms FROM langfuse_score_outbox ORDER BY created_ms, id;
    INSERT INTO outbox_destinations (destination, ready_at_ms) SELECT 'alert:' || notifier, ready_at_ms FROM alert_notifiers;
    DROP TABLE alert_outbox;
    DROP TABLE alert_notifiers;
    DROP TABLE langfuse_score_outbox;
`;
export const outbox = {
    version: 5,
    name: 'outbox: one delivery outbox for alert notifications and Langfuse scores',
    sqlite: tables({ bigint: 'INTEGER', serial: 'INTEGER PRIMARY KEY AUTOINCREMENT' }),
    postgres: tables({ bigint: 'BIGINT', serial: 'BIGSERIAL PRIMARY KEY' }),
};
//# sourceMappingURL=005-outbox.js.map