/**
 * What this process's committed problem writes hold (CommittedProblems), so that a batch's write
 * leaves out what would change nothing and skips lookups whose answer cannot change.
 */
import type { Sql } from '../store/sql.js';

/**
 * What committed transactions of this process wrote, per (service, problem id): that the problem's
 * row was written (so it exists, its own or `_other`), the example slots written once and never
 * replaced (`first`, `model:<model>`), and the time of the newest `latest`. Rows of the problem
 * tables are never deleted, and the row a problem went to stays the one it goes to, so writing a kept
 * slot again would change nothing, and neither would a `latest` older than the one written (the upsert
 * keeps the newer). And the services found at their cap: a problem this process wrote whose own row
 * does not exist went to `_other` because its service held `max_per_service` problems then, and a full
 * service stays full, so its next problems need not count them again. Bounded: past `max` entries it
 * starts over (the next writes are only those of a problem new to it again).
 */
export class CommittedProblems {
  private readonly byService = new Map<string, Map<string, Entry>>();
  /** Per service found at its cap, the largest cap it was found at. */
  private readonly fullAt = new Map<string, number>();
  private size = 0;

  /**
   * `ownRow`: whether the problem's own row exists (asked once per problem, after its first committed
   * write; absent: never asked, its rows always find their target in SQL).
   */
  constructor(
    private readonly ownRow?: (service: string, id: string) => Promise<boolean>,
    private readonly max = 100_000,
  ) {}

  /** Whether a committed write of this process carried the problem. */
  knows(service: string, id: string): boolean {
    return this.byService.get(service)?.has(id) ?? false;
  }

  /** Whether its own row is known to exist (rows are never deleted: its rows go there for good). */
  owns(service: string, id: string): boolean {
    return this.byService.get(service)?.get(id)?.own === true;
  }

  /** Whether its `first` example was written. */
  hasFirst(service: string, id: string): boolean {
    return this.byService.get(service)?.get(id)?.first ?? false;
  }

  /** Whether its `model:<model>` example was written. */
  hasModel(service: string, id: string, model: string): boolean {
    return this.byService.get(service)?.get(id)?.models.has(model) ?? false;
  }

  /** The time of the newest `latest` a committed write of this process carried (-Infinity: none). */
  latestMs(service: string, id: string): number {
    return this.byService.get(service)?.get(id)?.latestMs ?? Number.NEGATIVE_INFINITY;
  }

  /**
   * Whether the service is known to hold at least `cap` problems: committed rows only ever grow, so a
   * service found at a cap stays at it (and at any smaller one).
   */
  full(service: string, cap: number): boolean {
    const at = this.fullAt.get(service);
    return at !== undefined && at >= cap;
  }

  /** A committed write carried the problem, under a `max_per_service` of `cap`. */
  wrote(service: string, id: string, cap: number): void {
    const e = this.entry(service, id);
    if (e.own !== undefined || !this.ownRow) return;
    // Asked after the commit, of what is committed: a row that exists now exists for good, and one
    // that does not was sent to `_other` by a write that found the service at its cap.
    e.own = false;
    this.ownRow(service, id).then(
      (own) => {
        if (own) this.entry(service, id).own = true;
        else if (!this.full(service, cap)) {
          if (!this.fullAt.has(service)) this.size++;
          this.fullAt.set(service, cap);
        }
      },
      () => {
        // Not known: its rows keep finding their target in SQL.
      },
    );
  }

  keptFirst(service: string, id: string): void {
    this.entry(service, id).first = true;
  }

  keptModel(service: string, id: string, model: string): void {
    const e = this.entry(service, id);
    if (!e.models.has(model)) {
      e.models.add(model);
      this.size++;
    }
  }

  wroteLatest(service: string, id: string, timeMs: number): void {
    const e = this.entry(service, id);
    if (timeMs > e.latestMs) e.latestMs = timeMs;
  }

  private entry(service: string, id: string) {
    if (this.size >= this.max) {
      this.byService.clear();
      this.fullAt.clear();
      this.size = 0;
    }
    let ids = this.byService.get(service);
    if (!ids) this.byService.set(service, (ids = new Map()));
    let e = ids.get(id);
    if (!e) {
      ids.set(id, (e = { first: false, models: new Set(), latestMs: Number.NEGATIVE_INFINITY, own: undefined }));
      this.size++;
    }
    return e;
  }
}

interface Entry {
  first: boolean;
  /** The models whose `model:<model>` example was written. */
  models: Set<string>;
  latestMs: number;
  /** true: its own row exists; false: it did not when asked, or the answer is awaited; undefined: not asked. */
  own: boolean | undefined;
}

/** Whether a problem's own row exists (committed). */
export async function ownRowExists(sql: Pick<Sql, 'all'>, service: string, id: string): Promise<boolean> {
  return (await sql.all('SELECT 1 AS x FROM problems WHERE service = ? AND id = ?', [service, id])).length > 0;
}
