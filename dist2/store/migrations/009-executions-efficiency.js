// Issue 12, second part (version 9: version 8 is issue 8's exactly-once tables, on another branch):
// - execution_minutes: the status is now ok | client_error | server_error | error (rows written before
//   keep `ok` and `error`, which stays the "failed, nobody said how" class), plus the model of the
//   execution's call and that call's structural outcome (`call_outcome`: valid, InvalidJson,
//   UnknownName, SchemaMismatch, unvalidated, or unknown) — so a call that failed its check and then
//   failed downstream is counted once in the combined error rate, and rules group executions by model.
//   The primary key changes: SQLite rebuilds the table, PostgreSQL swaps the key.
// - trajectory_minutes / trajectory_buckets: per trajectory (a trace with tool calls, completed after
//   `trajectories.idle`) its model steps, tool calls, failed calls, tokens and wall time, summed per
//   minute, service and model, and counted per value bucket (src/efficiency/buckets.ts) for medians
//   and percentiles. No per-trace row: cost grows with the number of distinct values, not with traffic.
const trajectories = (t) => `
    CREATE TABLE trajectory_minutes (
      minute ${t.bigint} NOT NULL, service TEXT NOT NULL, model TEXT NOT NULL,
      trajectories ${t.bigint} NOT NULL, steps ${t.bigint} NOT NULL, tool_calls ${t.bigint} NOT NULL,
      failed_calls ${t.bigint} NOT NULL, tokens ${t.bigint} NOT NULL, with_tokens ${t.bigint} NOT NULL,
      duration_ms ${t.bigint} NOT NULL,
      PRIMARY KEY (minute, service, model)
    );
    CREATE TABLE trajectory_buckets (
      minute ${t.bigint} NOT NULL, service TEXT NOT NULL, model TEXT NOT NULL, measure TEXT NOT NULL,
      bucket ${t.bigint} NOT NULL, count ${t.bigint} NOT NULL,
      PRIMARY KEY (minute, service, model, measure, bucket)
    );
`;
export const executionsEfficiency = {
    version: 9,
    name: 'execution status classes, call outcome and model per execution; trajectory efficiency per minute',
    sqlite: `
    CREATE TABLE execution_minutes_v9 (
      minute INTEGER NOT NULL, source TEXT NOT NULL, service TEXT NOT NULL, model TEXT NOT NULL,
      tool TEXT NOT NULL, status TEXT NOT NULL, call_outcome TEXT NOT NULL, count INTEGER NOT NULL,
      PRIMARY KEY (minute, source, service, model, tool, status, call_outcome)
    ) WITHOUT ROWID;
    INSERT INTO execution_minutes_v9 (minute, source, service, model, tool, status, call_outcome, count)
      SELECT minute, source, service, '', tool, status, 'unknown', count FROM execution_minutes;
    DROP TABLE execution_minutes;
    ALTER TABLE execution_minutes_v9 RENAME TO execution_minutes;
    ${trajectories({ bigint: 'INTEGER' })}
  `,
    postgres: `
    ALTER TABLE execution_minutes ADD COLUMN model TEXT NOT NULL DEFAULT '';
    ALTER TABLE execution_minutes ADD COLUMN call_outcome TEXT NOT NULL DEFAULT 'unknown';
    ALTER TABLE execution_minutes DROP CONSTRAINT execution_minutes_pkey;
    ALTER TABLE execution_minutes ADD PRIMARY KEY (minute, source, service, model, tool, status, call_outcome);
    ALTER TABLE execution_minutes ALTER COLUMN model DROP DEFAULT;
    ALTER TABLE execution_minutes ALTER COLUMN call_outcome DROP DEFAULT;
    ${trajectories({ bigint: 'BIGINT' })}
  `,
};
//# sourceMappingURL=009-executions-efficiency.js.map