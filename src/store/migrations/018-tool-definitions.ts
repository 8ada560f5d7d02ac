import type { Migration } from './index.js';

// Issue 22: a version's definition text (hundreds of bytes to tens of kilobytes) sat in the row
// whose counters every ingest batch updates, and SQLite rewrites a whole row on update: every batch
// rewrote each offered definition, overflow pages included (a 4 KB definition made the upsert 2.5
// times as dear, 12 KB nearly four times). The text now has its own row, written when a version is
// first seen (src/changes/stored-definitions.ts says when it must be written again), and
// tool_versions keeps the counters, small rows stored in their key's order on SQLite (WITHOUT ROWID:
// one B-tree, not a table and its key's index).
const definitions = `
    CREATE TABLE tool_definitions (
      service TEXT NOT NULL, tool TEXT NOT NULL, version TEXT NOT NULL, definition TEXT NOT NULL,
      PRIMARY KEY (service, tool, version)
    );
    INSERT INTO tool_definitions (service, tool, version, definition)
      SELECT service, tool, version, definition FROM tool_versions;
`;

export const toolDefinitions: Migration = {
  version: 18,
  name: 'tool definitions stored apart from the counters of their versions',
  sqlite: `${definitions}
    CREATE TABLE tool_versions_v18 (
      service TEXT NOT NULL, tool TEXT NOT NULL, version TEXT NOT NULL,
      first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, calls INTEGER NOT NULL,
      PRIMARY KEY (service, tool, version)
    ) WITHOUT ROWID;
    INSERT INTO tool_versions_v18 (service, tool, version, first_seen, last_seen, calls)
      SELECT service, tool, version, first_seen, last_seen, calls FROM tool_versions;
    DROP TABLE tool_versions;
    ALTER TABLE tool_versions_v18 RENAME TO tool_versions;
  `,
  postgres: `${definitions}
    ALTER TABLE tool_versions DROP COLUMN definition;
  `,
};
