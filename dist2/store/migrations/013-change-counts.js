// Issue 20, attribution (version 13). What the change events are compared against:
// - version_minutes: per minute, service, tool (as counted: `_unknown` for an invented name), the
//   definition version the call's own request offered ('' when it offered none), the provider that
//   served its model span ('' when none is named) and outcome, the calls counted. Written in the
//   ingest batch's transaction from the deduplicated calls, so it agrees with call_minutes; it is
//   what per-version and per-provider error rates and "96 % of the new failures are on v4" are read
//   from (one row holds both dimensions: one upsert per group of calls, not two);
// - a trigger on change_state writes the change event when a sighting moves the state (the update's
//   WHERE is the transition rule of src/changes/store.ts), so a sighting is one statement, not two:
//   in the steady state, where nothing changes, nothing else runs. On PostgreSQL a replica that
//   raced another through the same switch waits for its row lock, then finds the state already moved
//   and updates nothing — no second event (the events' unique key stays as the last guard);
// - change_counts_pruned: per service and kind the change events the bounded history removed, so
//   toolwatch_tool_definition_changes_total (the events stored + those pruned) never goes down.
const tables = (bigint, rowid) => `
    CREATE TABLE version_minutes (
      minute ${bigint} NOT NULL, service TEXT NOT NULL, tool TEXT NOT NULL, version TEXT NOT NULL,
      provider TEXT NOT NULL, outcome TEXT NOT NULL, count ${bigint} NOT NULL,
      PRIMARY KEY (minute, service, tool, version, provider, outcome)
    )${rowid};
    CREATE TABLE change_counts_pruned (
      service TEXT NOT NULL, kind TEXT NOT NULL, pruned ${bigint} NOT NULL,
      PRIMARY KEY (service, kind)
    )${rowid};
`;
export const changeCounts = {
    version: 13,
    name: 'calls per definition version and provider, change events by trigger, pruned change counts',
    sqlite: `${tables('INTEGER', ' WITHOUT ROWID')}
    CREATE TRIGGER change_state_moved AFTER UPDATE OF value ON change_state
    WHEN OLD.value <> NEW.value
    BEGIN
      INSERT INTO change_events (time_ms, service, kind, tool, from_value, from_since, to_value)
      VALUES (NEW.since, NEW.service, NEW.kind, NEW.key, OLD.value, OLD.since, NEW.value)
      ON CONFLICT (service, kind, tool, from_value, from_since, to_value) DO NOTHING;
    END;
  `,
    postgres: `${tables('BIGINT', '')}
    CREATE FUNCTION change_state_moved() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO change_events (time_ms, service, kind, tool, from_value, from_since, to_value)
      VALUES (NEW.since, NEW.service, NEW.kind, NEW.key, OLD.value, OLD.since, NEW.value)
      ON CONFLICT (service, kind, tool, from_value, from_since, to_value) DO NOTHING;
      RETURN NULL;
    END $$;
    CREATE TRIGGER change_state_moved AFTER UPDATE OF value ON change_state
    FOR EACH ROW WHEN (OLD.value <> NEW.value) EXECUTE FUNCTION change_state_moved();
  `,
};
//# sourceMappingURL=013-change-counts.js.map