/**
 * Group commit, as both engines write: every batch queued while the previous group was committing
 * goes into the next transaction (one group in flight at a time per store), so the disk or the
 * server sees one commit for many batches, and a batch's promise settles only once its transaction
 * has. When a group fails for what may be one batch's data, each batch is retried on its own so a
 * bad one cannot fail its neighbours; a failure of the store itself (a lock, no connection, a full
 * disk) fails the whole group at once — retrying batch by batch would only wait N times as long.
 */
import type { WriteBatch } from './store.js';

export interface GroupCommitEngine {
  /** Writes the batches in one transaction (SQLite's answers synchronously). */
  commit(batches: WriteBatch[]): Promise<void> | void;
  /** Whether the failure may come from one batch of the group (bad data, a constraint). */
  mayBeOneBatchsFault(err: unknown): boolean;
  /** An error to fail a group with at once, without trying (SQLite: another process held the lock a moment ago). */
  refusal?(): Error | undefined;
}

interface Queued {
  batch: WriteBatch;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class GroupCommit {
  private queue: Queued[] = [];
  private inFlight = 0;
  private scheduled = false;
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly engine: GroupCommitEngine) {}

  write(batch: WriteBatch): Promise<void> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ batch, resolve, reject });
      this.schedule();
    });
  }

  /** Batches accepted and not yet committed (or failed). */
  pendingWrites(): number {
    return this.queue.length + this.inFlight;
  }

  /** Refuses new batches and commits what was accepted: the group in flight, then what queued behind it. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.flushing || this.queue.length > 0) {
      if (this.flushing) await this.flushing;
      else await (this.flushing = this.flush().finally(() => (this.flushing = null)));
    }
  }

  /** At most one group in flight: what arrives meanwhile waits and goes into the next group. */
  private schedule(): void {
    if (this.scheduled || this.flushing || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.flushing || this.queue.length === 0) return;
      this.flushing = this.flush().finally(() => {
        this.flushing = null;
        this.schedule();
      });
    });
  }

  private async flush(): Promise<void> {
    const items = this.queue;
    this.queue = [];
    this.inFlight = items.length;
    const settle = (it: Queued, err?: Error, committed = false): void => {
      this.inFlight--;
      if (committed)
        for (const x of it.batch.extensions) {
          try {
            x.committed?.();
          } catch {
            // What a feature learns from a commit is its own bookkeeping: the batch committed all the same.
          }
        }
      if (err) it.reject(err);
      else it.resolve();
    };
    const refused = this.engine.refusal?.();
    if (refused) {
      for (const it of items) settle(it, refused);
      return;
    }
    try {
      await this.engine.commit(items.map((it) => it.batch));
      for (const it of items) settle(it, undefined, true);
    } catch (groupErr) {
      if (items.length === 1 || !this.engine.mayBeOneBatchsFault(groupErr)) {
        for (const it of items) settle(it, groupErr as Error);
        return;
      }
      for (const it of items) {
        try {
          await this.engine.commit([it.batch]);
          settle(it, undefined, true);
        } catch (err) {
          settle(it, err as Error);
        }
      }
    }
  }
}
