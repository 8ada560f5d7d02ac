// Alert states (one row per rule and group) and the notification outbox (one row per message
// per notifier). The outbox is read head-first per notifier, hence the (notifier, status, id) index.
export const alerts = {
    version: 2,
    name: 'alerts: alert states, notification outbox, notifier rate limits',
    sqlite: `
    CREATE TABLE alert_states (
      rule TEXT NOT NULL, group_key TEXT NOT NULL, state TEXT NOT NULL, updated_ms INTEGER NOT NULL,
      instance TEXT NOT NULL,
      PRIMARY KEY (rule, group_key)
    ) WITHOUT ROWID;
    CREATE TABLE alert_outbox (
      id INTEGER PRIMARY KEY AUTOINCREMENT, notifier TEXT NOT NULL, created_ms INTEGER NOT NULL,
      message TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_ms INTEGER NOT NULL, last_attempt_ms INTEGER, done_ms INTEGER, last_error TEXT
    );
    CREATE INDEX alert_outbox_head ON alert_outbox (notifier, status, id);
    CREATE TABLE alert_notifiers (
      notifier TEXT PRIMARY KEY, ready_at_ms INTEGER NOT NULL
    ) WITHOUT ROWID;
  `,
    postgres: `
    CREATE TABLE alert_states (
      rule TEXT NOT NULL, group_key TEXT NOT NULL, state TEXT NOT NULL, updated_ms BIGINT NOT NULL,
      instance TEXT NOT NULL,
      PRIMARY KEY (rule, group_key)
    );
    CREATE TABLE alert_outbox (
      id BIGSERIAL PRIMARY KEY, notifier TEXT NOT NULL, created_ms BIGINT NOT NULL,
      message TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_ms BIGINT NOT NULL, last_attempt_ms BIGINT, done_ms BIGINT, last_error TEXT
    );
    CREATE INDEX alert_outbox_head ON alert_outbox (notifier, status, id);
    CREATE TABLE alert_notifiers (
      notifier TEXT PRIMARY KEY, ready_at_ms BIGINT NOT NULL
    );
  `,
};
//# sourceMappingURL=002-alerts.js.map