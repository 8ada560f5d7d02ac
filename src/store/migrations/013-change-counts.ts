import type { Migration } from './index.js';

// Issue 20, attribution (version 13). What the change events are compared against:
// - version_minutes: per minute, service, kind (`tool_definition`: value = the definition version
//   the call's own request offered; `provider`: value = the provider that served the call's model
//   span), tool (as counted: `_unknown` for an invented name) and outcome, the calls counted. Written
//   in the ingest batch's transaction from the deduplicated calls, so it agrees with call_minutes;
//   it is what per-version and per-provider error rates and "96 % of the new failures are on v4" are
//   read from;
// - change_counts_pruned: per service and kind the change events the bounded history removed, so
//   toolwatch_tool_definition_changes_total (the events stored + those pruned) never goes down.
const tables = (bigint: string, rowid: string) => `
    CREATE TABLE version_minutes (
      minute ${bigint} NOT NULL, service TEXT NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL,
      tool TEXT NOT NULL, outcome TEXT NOT NULL, count ${bigint} NOT NULL,
      PRIMARY KEY (minute, service, kind, value, tool, outcome)
    )${rowid};
    CREATE TABLE change_counts_pruned (
      service TEXT NOT NULL, kind TEXT NOT NULL, pruned ${bigint} NOT NULL,
      PRIMARY KEY (service, kind)
    )${rowid};
`;

export const changeCounts: Migration = {
  version: 13,
  name: 'calls per definition version and provider, pruned change counts',
  sqlite: tables('INTEGER', ' WITHOUT ROWID'),
  postgres: tables('BIGINT', ''),
};
