/**
 * Migration 18 on both engines: a version's definition text moves to tool_definitions and its
 * counters stay in tool_versions, every row kept; the tables take new rows afterwards.
 */
import { describe, expect, it } from 'vitest';
import { observeBatch } from '../../src/changes/observe.js';
import { DEFAULT_OBSERVE_LIMITS } from '../../src/changes/sink.js';
import { changesExtension, toolVersions } from '../../src/changes/store.js';
import { migrations } from '../../src/store/migrations/index.js';
import { emptyBatch, type Store } from '../../src/store/store.js';
import { callOf, modelSpan } from '../changes/model-span.js';
import { migratePostgres, migrateSqlite } from '../helpers/migrated-store.js';
import { pgServer } from '../helpers/pg.js';

const BEFORE = migrations.filter((m) => m.version < 18);
const definition = (description: string) =>
  JSON.stringify({ name: 'refund', description, parameters: { type: 'object' } });
const ROWS = [
  `INSERT INTO tool_versions (service, tool, version, definition, first_seen, last_seen, calls)
   VALUES ('shop', 'refund', 'v1', '${definition('Refund.')}', 1000, 2000, 7)`,
  `INSERT INTO tool_versions (service, tool, version, definition, first_seen, last_seen, calls)
   VALUES ('shop', 'refund', 'v2', '${definition('Refund an order.')}', 3000, 4000, 2)`,
];

async function check(store: Store): Promise<void> {
  const versions = await toolVersions(store.sql, 'shop', 'refund');
  expect(versions.map((v) => [v.version, v.firstSeenMs, v.lastSeenMs, v.calls, v.definition.description])).toEqual([
    ['v1', 1000, 2000, 7, 'Refund.'],
    ['v2', 3000, 4000, 2, 'Refund an order.'],
  ]);
  // The counters' table holds no text any more.
  const columns =
    store.kind === 'postgres'
      ? await store.sql.all(
          `SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'tool_versions' ORDER BY ordinal_position`,
        )
      : await store.sql.all('SELECT name FROM pragma_table_info(?)', ['tool_versions']);
  expect(columns.map((c) => c['name'])).toEqual(['service', 'tool', 'version', 'first_seen', 'last_seen', 'calls']);
  // A batch after it adds to the counters and writes a new version's text.
  const span = modelSpan(5000, [{ name: 'refund', description: 'Refund it.', parameters: { type: 'object' } }]);
  const ext = changesExtension(
    store.sql.dialect,
    observeBatch([span], [callOf(span, 'refund')], DEFAULT_OBSERVE_LIMITS),
  );
  await store.write({ ...emptyBatch(), extensions: ext ? [ext] : [] });
  const after = await toolVersions(store.sql, 'shop', 'refund');
  expect(after.map((v) => [v.calls, v.definition.description])).toEqual([
    [7, 'Refund.'],
    [2, 'Refund an order.'],
    [1, 'Refund it.'],
  ]);
}

describe('migration 18 (tool definitions apart from their counters)', () => {
  it('SQLite: rebuilds tool_versions without the text, every row kept', () => migrateSqlite(BEFORE, ROWS, check));

  it.skipIf(pgServer().skip)('PostgreSQL: the text moved, every row kept', () => migratePostgres(BEFORE, ROWS, check));
});
