/**
 * What this process knows the changes tables hold, learnt from the batches it committed (a batch
 * extension's committed(), src/store/sql.ts), so that the sightings of a batch that change nothing
 * are not written at all. Most of a batch's sightings are of the values its service already has.
 *
 * - change_state (the value and since of each (service, kind, key)): known only where this process is
 *   the one writer — SQLite, one process per file — read once at start and then moved exactly as the
 *   sighting statement moves it (src/changes/store.ts), batch by batch in commit order. A sighting of
 *   the value the state holds moves nothing (the statement's WHERE), so it is left out; its tool set
 *   row (service_tool_sets) exists then too (the current state's set is never pruned). On PostgreSQL
 *   another replica may move the state at any moment: every sighting is written, as before.
 * - A key a batch writes is "dirty" from the moment its statement runs until that batch's commit is
 *   learnt: a batch run meanwhile (the same group's transaction, or after a failed one, whose
 *   commit is never reported) writes its sightings of that key too. The next commit that wrote the
 *   key clears it.
 * Bounded: past MAX_KEYS keys the state is forgotten and every sighting is written from then on.
 */
import type { Sql } from '../store/sql.js';
import type { ChangeKind, Sighting } from './observe.js';
import type { Offer } from './offers.js';
import type { Segment } from './sightings.js';

const MAX_KEYS = 100_000;

interface StateEntry {
  /** null: no row (known absent). */
  value: string | null;
  since: number;
  /** The run that last wrote the key and whose commit is not learnt yet; 0 when none. */
  dirty: number;
}

interface ServiceState {
  /** prompt, model, provider, tool_set. */
  kinds: Map<ChangeKind, StateEntry>;
  /** tool_definition, by tool. */
  tools: Map<string, StateEntry>;
}

export class CommittedState {
  /** Whether `services` is the whole of change_state (a key absent there has no row). */
  private known = false;
  private readonly services = new Map<string, ServiceState>();
  private keys = 0;
  private runs = 0;
  /** Moves of what is known (a key dirtied or committed, the state read or forgotten): what `held` is valid for. */
  private moves = 0;
  /**
   * The offers (a service's definitions list, shared by its batches) whose every sighting the state
   * held as of `heldAt` moves: the steady state's check is one lookup per batch, not one per tool.
   */
  private held = new WeakSet<Offer>();
  private heldAt = 0;

  /**
   * Reads change_state once, before any batch (SQLite only: the one writer). A batch run before the
   * read came back would make it stale, so then it is not used: every sighting is written, as on
   * PostgreSQL.
   */
  async load(sql: Sql): Promise<void> {
    if (sql.dialect !== 'sqlite' || this.runs > 0) return;
    let rows: Record<string, unknown>[];
    try {
      rows = await sql.all('SELECT service, kind, key, value, since FROM change_state');
    } catch {
      return;
    }
    if (this.runs > 0 || rows.length > MAX_KEYS) return;
    for (const r of rows) {
      const e = this.entry(String(r['service']), String(r['kind']) as ChangeKind, String(r['key']), true);
      e.value = String(r['value']);
      e.since = Number(r['since']);
    }
    this.known = true;
    this.moves++;
  }

  /** A new run of a batch's statements: its token for dirty(). */
  beginRun(): number {
    return ++this.runs;
  }

  /** The stored state already holds this value and no statement not yet learnt may move it. */
  unchanged(s: Sighting): boolean {
    return this.holds(s.service, s.kind, s.key, s.value);
  }

  /** unchanged() of each sighting of the segment at its first time: its value, and an offer's each definition. */
  unchangedSegment(seg: Segment): boolean {
    if (!this.known) return false;
    const { service, offer } = seg;
    if (!offer) return this.holds(service, seg.kind, '', seg.value);
    if (this.heldAt !== this.moves) {
      this.held = new WeakSet();
      this.heldAt = this.moves;
    }
    if (this.held.has(offer)) return true;
    if (!this.holds(service, 'tool_set', '', seg.value)) return false;
    for (const d of offer.byDef) if (!this.holds(service, 'tool_definition', d.tool, d.version)) return false;
    this.held.add(offer);
    return true;
  }

  private holds(service: string, kind: ChangeKind, key: string, value: string): boolean {
    if (!this.known) return false;
    const e = this.entry(service, kind, key, false);
    return e !== undefined && e.dirty === 0 && e.value === value;
  }

  /** The run `token` writes a sighting of this key. */
  dirty(s: Sighting, token: number): void {
    if (!this.known) return;
    const e = this.entry(s.service, s.kind, s.key, true);
    e.dirty = token;
    this.moves++;
    if (this.keys > MAX_KEYS) this.forget();
  }

  /** The run `token` committed these sightings, written in this order: the state moves as the statement moved it. */
  committed(written: readonly Sighting[], token: number): void {
    if (!this.known || written.length === 0) return;
    this.moves++;
    for (const s of written) {
      const e = this.entry(s.service, s.kind, s.key, true);
      if (e.value === null || (e.value !== s.value && e.since <= s.timeMs)) {
        e.value = s.value;
        e.since = s.timeMs;
      }
    }
    for (const s of written) {
      const e = this.entry(s.service, s.kind, s.key, true);
      if (e.dirty === token) e.dirty = 0;
    }
    if (this.keys > MAX_KEYS) this.forget();
  }

  private forget(): void {
    this.moves++;
    this.known = false;
    this.services.clear();
    this.keys = 0;
  }

  private entry(service: string, kind: ChangeKind, key: string, create: true): StateEntry;
  private entry(service: string, kind: ChangeKind, key: string, create: false): StateEntry | undefined;
  private entry(service: string, kind: ChangeKind, key: string, create: boolean): StateEntry | undefined {
    let of = this.services.get(service);
    if (!of) {
      if (!create) return undefined;
      this.services.set(service, (of = { kinds: new Map(), tools: new Map() }));
    }
    const isTool = kind === 'tool_definition';
    const e = isTool ? of.tools.get(key) : of.kinds.get(kind);
    if (e || !create) return e;
    const fresh: StateEntry = { value: null, since: 0, dirty: 0 };
    if (isTool) of.tools.set(key, fresh);
    else of.kinds.set(kind, fresh);
    this.keys++;
    return fresh;
  }
}
