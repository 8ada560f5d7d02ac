/**
 * The outbox's "at most one message per minIntervalMs per destination" holds where it matters, at the
 * receiver: the next slot counts from the end of a send, so a slow send followed by a quick one still
 * reaches the webhook an interval apart (counted from the starts alone, a Slack-like receiver saw two
 * messages 998 ms apart in test/alerts/delivery.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Outbox, type DeliveryPolicy, type OutboxMessage } from '../../src/store/outbox.js';
import { SqliteStore } from '../../src/store/sqlite.js';

const policy: DeliveryPolicy = {
  ordered: true,
  backoff: { baseMs: 100, maxMs: 1000, jitter: 0 },
  minIntervalMs: 1000,
  maxRetryAfterMs: 3_600_000,
  keepDone: false,
  perPass: 10,
};

const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

describe('the outbox interval per destination', () => {
  it('counts from the end of a send: a slow send and a quick one reach the receiver an interval apart', async () => {
    const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    stores.push(store);
    const outbox = new Outbox(store.sql);
    let clock = 10_000;
    await outbox.enqueue('hook', [{ payload: 'slow' }, { payload: 'quick' }], clock);
    // How long each send takes to reach the receiver, and to end.
    const timing: Record<string, [arrive: number, end: number]> = { slow: [300, 500], quick: [10, 20] };
    const arrivals: number[] = [];
    const send = async (m: OutboxMessage) => {
      const [arrive, end] = timing[m.payload]!;
      arrivals.push(clock + arrive);
      clock += end;
      return { kind: 'ok' as const };
    };
    const pass = () => outbox.deliver('hook', { policy, now: () => clock, send });

    expect((await pass()).sent).toBe(1); // slow: starts at 10,000, reaches the receiver at 10,300, ends at 10,500
    clock = 11_000; // an interval after its start, 700 ms after it arrived
    expect((await pass()).sent).toBe(0);
    expect(await outbox.readyAt('hook')).toBe(11_500);
    clock = 11_500;
    expect((await pass()).sent).toBe(1);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(1000);
    expect(await outbox.readyAt('hook')).toBe(12_520);
  });
});
