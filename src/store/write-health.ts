/**
 * Whether the store takes writes: readiness must not say "ready" while every batch gets 503 (a full
 * disk still answers SELECT 1). Fed with each batch write's outcome; after a failure, readiness
 * checks with a real write (Store.probeWrite) until one succeeds — a replica taken out of the load
 * balancer gets no batches that could prove it healthy again.
 */
import type { Store } from './store.js';
import { isUnstorable } from './unstorable.js';

export class WriteHealth {
  private failure: { atMs: number; error: string } | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** A batch write failed and no write succeeded since. */
  get failing(): boolean {
    return this.failure !== undefined;
  }

  succeeded(): void {
    this.failure = undefined;
  }

  failed(err: unknown): void {
    // A batch refused for its own data says nothing about the store.
    if (isUnstorable(err)) return;
    this.failure ??= { atMs: this.now(), error: err instanceof Error ? err.message : String(err) };
  }

  /** Resolves when writes work (re-checked with a write after a failure); rejects with why not. */
  async check(store: Store): Promise<void> {
    const failure = this.failure;
    if (!failure) return store.ping();
    try {
      await (store.probeWrite ? store.probeWrite() : store.ping());
    } catch (err) {
      const since = new Date(failure.atMs).toISOString();
      throw new Error(`writes failing since ${since}: ${(err as Error).message || failure.error}`);
    }
    this.succeeded();
  }
}
