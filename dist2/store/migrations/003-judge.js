// The judge's tables. Trajectory rows exist only for candidate traces (hash below the highest
// sampling rate), so they grow with the sample, not with traffic. Steps are keyed by span id, so a
// resent export batch adds nothing. Booleans are INTEGER 0/1 in both stores, so one SQL text fits both.
const tables = (t) => `
    CREATE TABLE judge_trajectories (
      trace_id TEXT PRIMARY KEY, service TEXT NOT NULL, first_ms ${t.bigint} NOT NULL, end_ms ${t.bigint} NOT NULL,
      last_seen_ms ${t.bigint} NOT NULL, has_failure INTEGER NOT NULL, position ${t.real} NOT NULL,
      probability ${t.real}, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT,
      updated_ms ${t.bigint} NOT NULL
    );
    CREATE INDEX judge_trajectories_status ON judge_trajectories (status, last_seen_ms);
    CREATE TABLE judge_steps (
      trace_id TEXT NOT NULL, span_id TEXT NOT NULL, start_ms ${t.bigint} NOT NULL, end_ms ${t.bigint} NOT NULL,
      kind TEXT NOT NULL, payload TEXT NOT NULL,
      PRIMARY KEY (trace_id, span_id)
    );
    CREATE TABLE judge_verdicts (
      id ${t.serial}, trace_id TEXT NOT NULL, run_id ${t.bigint} NOT NULL, time_ms ${t.bigint} NOT NULL,
      service TEXT NOT NULL, model TEXT NOT NULL, status TEXT NOT NULL, reached_goal INTEGER,
      unnecessary_calls INTEGER, dangerous_calls INTEGER, reasoning TEXT, error TEXT,
      prompt_version TEXT NOT NULL, judge_model TEXT NOT NULL, probability ${t.real} NOT NULL, weight ${t.real} NOT NULL,
      input_tokens ${t.bigint} NOT NULL, output_tokens ${t.bigint} NOT NULL, cost ${t.real} NOT NULL
    );
    CREATE INDEX judge_verdicts_time ON judge_verdicts (time_ms);
    CREATE INDEX judge_verdicts_trace ON judge_verdicts (trace_id);
    CREATE INDEX judge_verdicts_run ON judge_verdicts (run_id);
    CREATE TABLE judge_labels (
      trace_id TEXT PRIMARY KEY, reached_goal INTEGER NOT NULL, unnecessary_calls INTEGER NOT NULL,
      dangerous_calls INTEGER NOT NULL, labeler TEXT NOT NULL, note TEXT NOT NULL, time_ms ${t.bigint} NOT NULL
    );
    CREATE TABLE judge_runs (
      id ${t.serial}, started_ms ${t.bigint} NOT NULL, finished_ms ${t.bigint}, status TEXT NOT NULL,
      judged INTEGER NOT NULL DEFAULT 0, errors INTEGER NOT NULL DEFAULT 0, left_pending INTEGER NOT NULL DEFAULT 0,
      input_tokens ${t.bigint} NOT NULL DEFAULT 0, output_tokens ${t.bigint} NOT NULL DEFAULT 0,
      cost ${t.real} NOT NULL DEFAULT 0, stop_reason TEXT, prompt_version TEXT NOT NULL, judge_model TEXT NOT NULL
    );
`;
export const judge = {
    version: 3,
    name: 'judge: sampled trajectories, verdicts, human labels, runs',
    sqlite: tables({ bigint: 'INTEGER', real: 'REAL', serial: 'INTEGER PRIMARY KEY AUTOINCREMENT' }),
    postgres: tables({ bigint: 'BIGINT', real: 'DOUBLE PRECISION', serial: 'BIGSERIAL PRIMARY KEY' }),
};
//# sourceMappingURL=003-judge.js.map