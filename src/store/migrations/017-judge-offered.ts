import type { Migration } from './index.js';

// Issue 22: a model step's offered tools were two thirds of its bytes and the same on every model
// span of a service, written at ingest for every judge candidate and deleted again for the nine in
// ten that are dropped. They are now stored once per distinct list, keyed by a hash of their JSON
// (judge/steps.ts), and a step names its list. Steps stored before keep theirs in the payload.
const tables = (bigint: string) => `
    CREATE TABLE judge_offered (ref TEXT PRIMARY KEY, tools TEXT NOT NULL, last_used_ms ${bigint} NOT NULL);
    ALTER TABLE judge_steps ADD COLUMN offered TEXT;
`;

export const judgeOffered: Migration = {
  version: 17,
  name: 'judge: offered tool lists stored once, steps refer to them',
  sqlite: tables('INTEGER'),
  postgres: tables('BIGINT'),
};
