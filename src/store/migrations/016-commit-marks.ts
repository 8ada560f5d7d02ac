import type { Migration } from './index.js';

// PostgreSQL only: a row per group transaction whose COMMIT may go unanswered (pg-in-doubt.ts),
// written inside that transaction under a token only its writer knows. `pg_xact_status` alone
// cannot settle such a COMMIT after a crash: a transaction whose WAL never reached disk leaves its
// id free, and the first transaction after recovery is handed the same id — its commit then read
// as ours (a batch acknowledged and never counted). The row is seen only if ours committed.
// Pruned by the hourly retention job (older than an hour; a COMMIT is settled within seconds). No
// index: a row is appended by every group commit and looked for only when a COMMIT was lost, so
// the rare lookup scans (an hour of rows) rather than every commit paying for a B-tree insert.
export const commitMarks: Migration = {
  version: 16,
  name: 'commit marks: settling a lost COMMIT after a crash',
  sqlite: '-- PostgreSQL only: SQLite commits in process, an answer cannot be lost.',
  postgres: 'CREATE TABLE commit_marks (token UUID NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now());',
};
