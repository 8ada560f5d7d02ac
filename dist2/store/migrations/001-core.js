// Aggregates are keyed by minute and labels (a handful of rows a minute), never by random span
// ids: a unique index on ids in the hot path costs ~5x on inserts.
export const core = {
    version: 1,
    name: 'core: call and execution aggregates, failure records',
    sqlite: `
    CREATE TABLE call_minutes (
      minute INTEGER NOT NULL, source TEXT NOT NULL, service TEXT NOT NULL, model TEXT NOT NULL,
      tool TEXT NOT NULL, outcome TEXT NOT NULL, reason TEXT NOT NULL, count INTEGER NOT NULL,
      PRIMARY KEY (minute, source, service, model, tool, outcome, reason)
    ) WITHOUT ROWID;
    CREATE TABLE execution_minutes (
      minute INTEGER NOT NULL, source TEXT NOT NULL, service TEXT NOT NULL, tool TEXT NOT NULL,
      status TEXT NOT NULL, count INTEGER NOT NULL,
      PRIMARY KEY (minute, source, service, tool, status)
    ) WITHOUT ROWID;
    CREATE TABLE failures (
      id INTEGER PRIMARY KEY AUTOINCREMENT, time_ms INTEGER NOT NULL, source TEXT NOT NULL,
      service TEXT NOT NULL, model TEXT NOT NULL, tool TEXT NOT NULL, name TEXT NOT NULL,
      outcome TEXT NOT NULL, trace_id TEXT NOT NULL, span_id TEXT NOT NULL, call_id TEXT,
      arguments TEXT, errors TEXT NOT NULL, message TEXT NOT NULL
    );
    CREATE INDEX failures_time ON failures (time_ms);
    CREATE TABLE failure_drops (
      minute INTEGER NOT NULL, service TEXT NOT NULL, tool TEXT NOT NULL, dropped INTEGER NOT NULL,
      PRIMARY KEY (minute, service, tool)
    ) WITHOUT ROWID;
    CREATE TABLE pending_calls (
      trace_id TEXT NOT NULL, call_key TEXT NOT NULL, due_ms INTEGER NOT NULL, payload TEXT NOT NULL,
      PRIMARY KEY (trace_id, call_key)
    ) WITHOUT ROWID;
  `,
    postgres: `
    CREATE TABLE call_minutes (
      minute BIGINT NOT NULL, source TEXT NOT NULL, service TEXT NOT NULL, model TEXT NOT NULL,
      tool TEXT NOT NULL, outcome TEXT NOT NULL, reason TEXT NOT NULL, count BIGINT NOT NULL,
      PRIMARY KEY (minute, source, service, model, tool, outcome, reason)
    );
    CREATE TABLE execution_minutes (
      minute BIGINT NOT NULL, source TEXT NOT NULL, service TEXT NOT NULL, tool TEXT NOT NULL,
      status TEXT NOT NULL, count BIGINT NOT NULL,
      PRIMARY KEY (minute, source, service, tool, status)
    );
    CREATE TABLE failures (
      id BIGSERIAL PRIMARY KEY, time_ms BIGINT NOT NULL, source TEXT NOT NULL,
      service TEXT NOT NULL, model TEXT NOT NULL, tool TEXT NOT NULL, name TEXT NOT NULL,
      outcome TEXT NOT NULL, trace_id TEXT NOT NULL, span_id TEXT NOT NULL, call_id TEXT,
      arguments TEXT, errors TEXT NOT NULL, message TEXT NOT NULL
    );
    CREATE INDEX failures_time ON failures (time_ms);
    CREATE TABLE failure_drops (
      minute BIGINT NOT NULL, service TEXT NOT NULL, tool TEXT NOT NULL, dropped BIGINT NOT NULL,
      PRIMARY KEY (minute, service, tool)
    );
    CREATE TABLE pending_calls (
      trace_id TEXT NOT NULL, call_key TEXT NOT NULL, due_ms BIGINT NOT NULL, payload TEXT NOT NULL,
      PRIMARY KEY (trace_id, call_key)
    );
  `,
};
//# sourceMappingURL=001-core.js.map