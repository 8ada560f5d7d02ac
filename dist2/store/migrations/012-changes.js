// Issue 20 (version 12, after the problems' 10 and 11). What changed,
// from what spans carry (src/changes/):
// - tool_versions: per service, tool and definition version (src/tools/definition-hash.ts) its
//   canonical definition (for diffs), first and last seen, and the calls attributed to it;
// - service_tool_sets: per service and tool-set version the names it holds (a JSON list), so a tool_set
//   event can say which tools were added and removed;
// - change_state: per service, kind (tool_definition, tool_set, model, provider) and key (the tool
//   for tool_definition, '' otherwise) the current value and since when — the state machine change
//   events are derived from inside the batch's transaction, write-only;
// - change_events: one row per transition. The unique key is the transition itself (what it changed
//   from, since when, to what), so two replicas that saw the same switch in concurrent batches write
//   one event: the second insert meets the first's key and does nothing.
const tables = (t) => `
    CREATE TABLE tool_versions (
      service TEXT NOT NULL, tool TEXT NOT NULL, version TEXT NOT NULL, definition TEXT NOT NULL,
      first_seen ${t.bigint} NOT NULL, last_seen ${t.bigint} NOT NULL, calls ${t.bigint} NOT NULL,
      PRIMARY KEY (service, tool, version)
    );
    CREATE TABLE service_tool_sets (
      service TEXT NOT NULL, version TEXT NOT NULL, names TEXT NOT NULL,
      PRIMARY KEY (service, version)
    );
    CREATE TABLE change_state (
      service TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
      since ${t.bigint} NOT NULL,
      PRIMARY KEY (service, kind, key)
    );
    CREATE TABLE change_events (
      id ${t.id},
      time_ms ${t.bigint} NOT NULL, service TEXT NOT NULL, kind TEXT NOT NULL, tool TEXT NOT NULL,
      from_value TEXT NOT NULL, from_since ${t.bigint} NOT NULL, to_value TEXT NOT NULL,
      UNIQUE (service, kind, tool, from_value, from_since, to_value)
    );
    CREATE INDEX change_events_time ON change_events (time_ms);
`;
export const changes = {
    version: 12,
    name: 'tool definition versions, tool sets, change state and change events',
    sqlite: tables({ bigint: 'INTEGER', id: 'INTEGER PRIMARY KEY AUTOINCREMENT' }),
    postgres: tables({ bigint: 'BIGINT', id: 'BIGSERIAL PRIMARY KEY' }),
};
//# sourceMappingURL=012-changes.js.map