/**
 * The count rows of a group commit's batches, summed per row key: one upsert per distinct minute
 * aggregate or drop row of the group instead of one per batch. Upserts that add counts commute with
 * everything else a batch writes, so applying them first, summed, stores exactly what applying each
 * batch's own rows would (the counters stay exact); a group usually holds batches of the same few
 * services, tools and outcomes (issue 22: each upsert is tens of microseconds of SQLite work).
 */
import type { CallAggregate, ExecutionAggregate, FailureDrop, WriteBatch } from './store.js';
import { compareText } from '../util/compare-text.js';

export interface GroupCounts {
  callAggregates: CallAggregate[];
  executionAggregates: ExecutionAggregate[];
  failureDrops: FailureDrop[];
}

export function groupCounts(batches: readonly WriteBatch[]): GroupCounts {
  const calls = new Summed(CALL_ROWS);
  const execs = new Summed(EXECUTION_ROWS);
  const drops = new Summed(DROP_ROWS);
  for (const b of batches) {
    for (const r of b.callAggregates) calls.add(r);
    for (const r of b.executionAggregates) execs.add(r);
    for (const r of b.failureDrops) drops.add(r);
  }
  return { callAggregates: calls.rows, executionAggregates: execs.rows, failureDrops: drops.rows };
}

/**
 * groupCounts with each table's rows sorted by key (PostgreSQL: concurrent writers then lock the
 * rows of one table in one order and never deadlock).
 */
export function sortedGroupCounts(batches: readonly WriteBatch[]): GroupCounts {
  const g = groupCounts(batches);
  g.callAggregates.sort(CALL_ROWS.compare);
  g.executionAggregates.sort(EXECUTION_ROWS.compare);
  g.failureDrops.sort(DROP_ROWS.compare);
  return g;
}

/** How rows of one table are told apart, ordered by key and summed. */
interface RowKind<T> {
  same(a: T, b: T): boolean;
  key(r: T): string;
  /** The key order: its columns in the order `key` joins them. */
  compare(a: T, b: T): number;
  add(into: T, r: T): void;
}

/** The columns both minute tables' keys begin with, in their order. */
type CountHead = Pick<CallAggregate & ExecutionAggregate, 'minute' | 'source' | 'service' | 'model' | 'tool'>;
const compareHead = (a: CountHead, b: CountHead) =>
  a.minute - b.minute ||
  compareText(a.source, b.source) ||
  compareText(a.service, b.service) ||
  compareText(a.model, b.model) ||
  compareText(a.tool, b.tool);

const CALL_ROWS: RowKind<CallAggregate> = {
  same: (a, b) =>
    a.minute === b.minute &&
    a.tool === b.tool &&
    a.outcome === b.outcome &&
    a.service === b.service &&
    a.model === b.model &&
    a.source === b.source &&
    a.reason === b.reason,
  key: (r) =>
    `${r.minute}\u0000${r.source}\u0000${r.service}\u0000${r.model}\u0000${r.tool}\u0000${r.outcome}\u0000${r.reason}`,
  compare: (a, b) => compareHead(a, b) || compareText(a.outcome, b.outcome) || compareText(a.reason, b.reason),
  add: (into, r) => void (into.count += r.count),
};

const EXECUTION_ROWS: RowKind<ExecutionAggregate> = {
  same: (a, b) =>
    a.minute === b.minute &&
    a.tool === b.tool &&
    a.status === b.status &&
    a.callOutcome === b.callOutcome &&
    a.service === b.service &&
    a.model === b.model &&
    a.source === b.source,
  key: (r) =>
    `${r.minute}\u0000${r.source}\u0000${r.service}\u0000${r.model}\u0000${r.tool}\u0000${r.status}\u0000${r.callOutcome}`,
  compare: (a, b) => compareHead(a, b) || compareText(a.status, b.status) || compareText(a.callOutcome, b.callOutcome),
  add: (into, r) => void (into.count += r.count),
};

const DROP_ROWS: RowKind<FailureDrop> = {
  same: (a, b) => a.minute === b.minute && a.tool === b.tool && a.service === b.service,
  key: (r) => `${r.minute}\u0000${r.service}\u0000${r.tool}`,
  compare: (a, b) => a.minute - b.minute || compareText(a.service, b.service) || compareText(a.tool, b.tool),
  add: (into, r) => void (into.dropped += r.dropped),
};

/**
 * Rows compared one by one among those of the same tool (a group's usual few), found through the
 * tool's own list: a lookup by a string the rows already hold, no key built per row. Past this many
 * rows in all, found through a map by key instead, so a group of many rows per tool stays linear.
 */
const SCAN_LIMIT = 256;

/** Rows summed per key in the order first seen; each a copy (the batches' own rows stay as they are). */
class Summed<T extends { tool: string }> {
  readonly rows: T[] = [];
  private readonly byTool = new Map<string, T[]>();
  private byKey: Map<string, T> | undefined;

  constructor(private readonly kind: RowKind<T>) {}

  add(r: T): void {
    const { kind } = this;
    if (this.byKey === undefined) {
      let same = this.byTool.get(r.tool);
      if (same === undefined) this.byTool.set(r.tool, (same = []));
      else
        for (let i = 0; i < same.length; i++) {
          if (kind.same(same[i]!, r)) {
            kind.add(same[i]!, r);
            return;
          }
        }
      const copy = { ...r };
      same.push(copy);
      this.rows.push(copy);
      if (this.rows.length >= SCAN_LIMIT) {
        this.byKey = new Map();
        for (const x of this.rows) this.byKey.set(kind.key(x), x);
      }
      return;
    }
    const k = kind.key(r);
    const had = this.byKey.get(k);
    if (had) kind.add(had, r);
    else {
      const copy = { ...r };
      this.rows.push(copy);
      this.byKey.set(k, copy);
    }
  }
}
