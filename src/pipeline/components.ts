/**
 * Counting's two components (src/jobs/lifecycle.ts): the dedupe memory (the journal loaded at start,
 * pruned every second, and what is held — executions, trajectories — written at stop), and the
 * waiting calls (those this process may count adopted at start, settled as their graces end, the
 * lease renewed and the calls of processes gone taken over, released at stop for the next process).
 */
import type { Logger } from 'pino';
import type { Component } from '../jobs/lifecycle.js';
import type { Store } from '../store/store.js';
import type { DedupeConfig } from './config.js';
import type { Ledger } from './ledger.js';
import type { LedgerJournal } from './ledger-journal.js';
import type { PendingOwner } from './pending-owner.js';
import type { Pipeline } from './pipeline.js';

export function countingComponent(d: {
  pipeline: Pipeline;
  ledger: Ledger;
  journal: LedgerJournal;
  store: Store;
  log: Logger;
  steady: () => number;
}): Component {
  return {
    name: 'counting',
    async start(scheduler) {
      // The dedupe memory as the previous process left it.
      const loaded = await d.journal.load(d.ledger, d.steady());
      if (loaded.unreadable > 0) {
        d.log.warn({ unreadable: loaded.unreadable }, 'dedupe journal: unreadable records skipped');
      }
      d.log.debug({ ...loaded }, 'dedupe journal loaded');
      scheduler.interval('dedupe-journal-prune', 1_000, () =>
        d.store.runExclusive('dedupe-journal-prune', () => d.journal.prune()),
      );
    },
    // Held executions and trajectories in flight are counted as they stand (a crash loses them).
    stop: () =>
      d.pipeline
        .drain()
        .catch((err: unknown) => d.log.error({ err }, 'shutdown: held executions and trajectories not written')),
  };
}

/**
 * How often a settle round runs: a twentieth of the shorter grace (a status grace of 0 holds
 * nothing), between 50 and 250 ms — 100 ms at the defaults. A round is synchronous: at 650 batches a
 * second, one every 500 ms (a quarter of the grace, as it was) released some 9,000 executions at once
 * and held the event loop for 30–50 ms.
 */
export function settleRoundMs(c: Pick<DedupeConfig, 'executionGraceMs' | 'statusGraceMs'>): number {
  const graces = Math.min(c.executionGraceMs, c.statusGraceMs || Number.POSITIVE_INFINITY);
  return Math.min(250, Math.max(50, graces / 20));
}

export function pendingCallsComponent(d: {
  pipeline: Pipeline;
  owner: PendingOwner;
  config: Pick<DedupeConfig, 'executionGraceMs' | 'statusGraceMs'>;
  log: Logger;
}): Component {
  const { pipeline, owner, log } = d;
  const adopt = async (rows: Parameters<Pipeline['restorePending']>[0]) => {
    const restored = pipeline.restorePending(rows);
    if (restored.unreadable.length > 0) {
      // Not counted (this version cannot read them); they stay in the table for inspection.
      const { unreadable } = restored;
      const first = unreadable.slice(0, 5);
      log.warn({ unreadable: unreadable.length, first }, 'pending calls: unreadable rows skipped');
    }
    if (restored.superseded.length > 0) await owner.drop(restored.superseded);
    return restored.restored;
  };
  return {
    name: 'pending calls',
    async start(scheduler) {
      await adopt(await owner.start());
      scheduler.interval('settle-pending-calls', settleRoundMs(d.config), () => pipeline.settle());
      // Renew this process's lease and take over the waiting calls of processes gone.
      scheduler.interval('pending-calls-lease', owner.renewEveryMs, async () => {
        const n = await adopt(await owner.renew());
        if (n > 0) log.info({ calls: n }, 'pending calls taken over from a process gone');
      });
    },
    // Its waiting calls go to the next process to look (batches still being written are held too).
    stop: () =>
      owner.release().catch((err: unknown) => {
        log.warn({ err }, 'pending calls: not released; another process takes them over when the lease ends');
      }),
  };
}
