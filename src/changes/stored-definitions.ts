/**
 * Which definition texts (tool_definitions, migration 018) this process knows the store holds, so a
 * batch writes a version's definition only when the version is new to it — not on every batch, as
 * the counters are. The store holds a version's definition as long as it holds the version's
 * counters row: the hourly retention removes both once last_seen falls behind the retention window
 * (src/changes/store.ts pruneChanges), and last_seen never goes back. So a version this process
 * committed with a last_seen less than an hour old cannot have been removed: the window is at least
 * a day on every replica (store.retention_days ≥ 1), which leaves 23 hours for their clocks to
 * differ. A version not committed within the hour (the agent stopped offering it, or its spans are
 * old) has its definition written again — a no-op where the row is still there.
 * Bounded: past MAX_KEYS versions it starts over (every definition written once more).
 */
import type { VersionSeen } from './count-calls.js';

const MAX_KEYS = 100_000;
/** How recent a committed last_seen must be for its definition to be known stored. */
export const KNOWN_FOR_MS = 3_600_000;

export class StoredDefinitions {
  /** Version key (VersionSeen.key) → the latest last_seen this process committed for it. */
  private readonly lastSeen = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Of a batch's versions (sorted by key), those whose definition it must write, in that order. */
  toWrite<V extends Pick<VersionSeen, 'key'>>(versions: readonly V[]): readonly V[] {
    const since = this.now() - KNOWN_FOR_MS;
    let out: V[] | undefined;
    for (let i = 0; i < versions.length; i++) {
      const v = versions[i]!;
      const seen = this.lastSeen.get(v.key);
      if (seen !== undefined && seen >= since) continue;
      // Most batches write none: the list is made only for the first version that needs it.
      out ??= [];
      out.push(v);
    }
    return out ?? NONE;
  }

  /** A batch that wrote `versions` (counters, and definitions where needed) committed. */
  committed(versions: readonly Pick<VersionSeen, 'key' | 'lastMs'>[]): void {
    for (const v of versions) {
      const seen = this.lastSeen.get(v.key);
      if (seen === undefined) {
        if (this.lastSeen.size >= MAX_KEYS) this.lastSeen.clear();
        this.lastSeen.set(v.key, v.lastMs);
      } else if (v.lastMs > seen) this.lastSeen.set(v.key, v.lastMs);
    }
  }
}

const NONE: readonly never[] = [];
