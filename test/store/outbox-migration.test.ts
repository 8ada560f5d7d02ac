/**
 * Migration 005 moves the alert outbox, the notifiers' rate-limit slots and the Langfuse score
 * outbox into the one delivery outbox, on both engines, keeping every message and its state.
 */
import { describe, expect, it } from 'vitest';
import { AlertStore } from '../../src/alerts/alert-store.js';
import { migrations } from '../../src/store/migrations/index.js';
import type { Store } from '../../src/store/store.js';
import { LangfuseState } from '../../src/sources/langfuse/state.js';
import { migratePostgres, migrateSqlite } from '../helpers/migrated-store.js';
import { pgServer } from '../helpers/pg.js';

const BEFORE = migrations.filter((m) => m.version < 5);
const ROWS = [
  `INSERT INTO alert_outbox (notifier, created_ms, message, status, attempts, next_attempt_ms, last_attempt_ms, done_ms, last_error)
   VALUES ('slack', 1000, '{"rule":"a","status":"firing"}', 'sent', 1, 1000, 1000, 1100, NULL)`,
  `INSERT INTO alert_outbox (notifier, created_ms, message, status, attempts, next_attempt_ms, last_attempt_ms, done_ms, last_error)
   VALUES ('slack', 2000, '{"rule":"a","status":"resolved"}', 'pending', 2, 9000, 5000, NULL, '500 boom')`,
  `INSERT INTO alert_notifiers (notifier, ready_at_ms) VALUES ('slack', 9000)`,
  `INSERT INTO langfuse_score_outbox (id, body, attempts, next_ms, created_ms) VALUES ('tw-1', '{"id":"tw-1"}', 3, 7000, 500)`,
];

async function check(store: Store): Promise<void> {
  const alerts = new AlertStore(store.sql);
  const head = (await alerts.head('slack'))!;
  expect(head).toMatchObject({
    notifier: 'slack',
    status: 'pending',
    attempts: 2,
    nextAttemptMs: 9000,
    lastError: '500 boom',
    message: { status: 'resolved' },
  });
  expect(await alerts.outboxSummary(5)).toMatchObject({ pending: 1, sent: 1, failed: 0 });
  expect(await alerts.outbox.readyAt('alert:slack')).toBe(9000);
  const lf = await LangfuseState.open(store.sql);
  expect(await lf.pendingScores()).toBe(1);
  // The score id stays its dedupe key: queuing it again while pending adds nothing.
  await lf.enqueueScores([{ id: 'tw-1', traceId: 't', name: 'x', value: 1, dataType: 'NUMERIC' }], 8000);
  expect(await lf.pendingScores()).toBe(1);
}

describe('migration 005 (one outbox)', () => {
  it('SQLite: moves every message', () => migrateSqlite(BEFORE, ROWS, check));

  it.skipIf(pgServer().skip)('PostgreSQL: moves every message', () => migratePostgres(BEFORE, ROWS, check));
});
