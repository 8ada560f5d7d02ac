import type { Migration } from './index.js';

// Issue 22: a judge candidate's steps were keyed by (trace_id, span_id). Trace ids are random, so
// every batch's steps went into that key's index at random places — a page of it dirtied, and
// written out at COMMIT, for almost every trace of the batch: with the judge on, SQLite's COMMIT
// took about five times as long. A trajectory now has a sequential id, given when it is first
// stored, and its steps are keyed by (trajectory, span_id): a batch's new steps land at the end of
// the index. The trace id stays the trajectory's unique key (ingest and the API find it by that).
// Steps whose trajectory is gone are not carried over (nothing could read them).
const STEPS_V19 = (bigint: string) => `
    CREATE TABLE judge_steps_v19 (
      trajectory ${bigint} NOT NULL, span_id TEXT NOT NULL, start_ms ${bigint} NOT NULL, end_ms ${bigint} NOT NULL,
      kind TEXT NOT NULL, payload TEXT NOT NULL, offered TEXT,
      PRIMARY KEY (trajectory, span_id)
    );
    INSERT INTO judge_steps_v19 (trajectory, span_id, start_ms, end_ms, kind, payload, offered)
      SELECT t.id, s.span_id, s.start_ms, s.end_ms, s.kind, s.payload, s.offered
      FROM judge_steps s JOIN judge_trajectories t ON t.trace_id = s.trace_id;
    DROP TABLE judge_steps;
    ALTER TABLE judge_steps_v19 RENAME TO judge_steps;
`;

export const judgeStepKeys: Migration = {
  version: 19,
  name: 'judge: trajectories numbered in order, steps keyed by trajectory',
  sqlite: `
    CREATE TABLE judge_trajectories_v19 (
      id INTEGER PRIMARY KEY, trace_id TEXT NOT NULL UNIQUE, service TEXT NOT NULL, first_ms INTEGER NOT NULL,
      end_ms INTEGER NOT NULL, last_seen_ms INTEGER NOT NULL, has_failure INTEGER NOT NULL, position REAL NOT NULL,
      probability REAL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT,
      updated_ms INTEGER NOT NULL
    );
    INSERT INTO judge_trajectories_v19 (trace_id, service, first_ms, end_ms, last_seen_ms, has_failure, position,
        probability, status, attempts, last_error, updated_ms)
      SELECT trace_id, service, first_ms, end_ms, last_seen_ms, has_failure, position, probability, status, attempts,
        last_error, updated_ms
      FROM judge_trajectories ORDER BY first_ms, trace_id;
    DROP TABLE judge_trajectories;
    ALTER TABLE judge_trajectories_v19 RENAME TO judge_trajectories;
    CREATE INDEX judge_trajectories_status ON judge_trajectories (status, last_seen_ms);
    ${STEPS_V19('INTEGER')}
  `,
  postgres: `
    ALTER TABLE judge_trajectories ADD COLUMN id BIGSERIAL;
    ALTER TABLE judge_trajectories ADD CONSTRAINT judge_trajectories_id UNIQUE (id);
    ${STEPS_V19('BIGINT')}
  `,
};
