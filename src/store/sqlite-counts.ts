/**
 * The count rows of a SQLite write (call and execution minutes, failure drops) as multi-row upserts
 * with positional parameters: one statement per table for a usual group instead of one per row with
 * its parameters read from an object by name. SQLite applies a multi-row upsert row by row, so a key
 * twice in one statement adds up as two statements would.
 */
import type Database from 'better-sqlite3';
import { valuesList } from './sql.js';
import type { CallAggregate, ExecutionAggregate, FailureDrop } from './store.js';

/** Rows per statement (8 values each: far below SQLite's parameter limit); a statement per count is kept. */
const ROWS_PER_STATEMENT = 64;

interface Table<T> {
  columns: number;
  sql: (values: string) => string;
  params: (row: T, out: unknown[]) => void;
}

const CALLS: Table<CallAggregate> = {
  columns: 8,
  sql: (values) => `INSERT INTO call_minutes (minute, source, service, model, tool, outcome, reason, count)
    VALUES ${values}
    ON CONFLICT (minute, source, service, model, tool, outcome, reason) DO UPDATE SET count = count + excluded.count`,
  params: (r, out) => void out.push(r.minute, r.source, r.service, r.model, r.tool, r.outcome, r.reason, r.count),
};

const EXECUTIONS: Table<ExecutionAggregate> = {
  columns: 8,
  sql: (values) => `INSERT INTO execution_minutes (minute, source, service, model, tool, status, call_outcome, count)
    VALUES ${values}
    ON CONFLICT (minute, source, service, model, tool, status, call_outcome) DO UPDATE SET count = count + excluded.count`,
  params: (r, out) => void out.push(r.minute, r.source, r.service, r.model, r.tool, r.status, r.callOutcome, r.count),
};

const DROPS: Table<FailureDrop> = {
  columns: 4,
  sql: (values) => `INSERT INTO failure_drops (minute, service, tool, dropped) VALUES ${values}
    ON CONFLICT (minute, service, tool) DO UPDATE SET dropped = dropped + excluded.dropped`,
  params: (d, out) => void out.push(d.minute, d.service, d.tool, d.dropped),
};

export class SqliteCounts {
  private readonly prepared = new Map<Table<never>, Database.Statement[]>();

  constructor(private readonly db: Database.Database) {}

  write(counts: {
    callAggregates: readonly CallAggregate[];
    executionAggregates: readonly ExecutionAggregate[];
    failureDrops: readonly FailureDrop[];
  }): void {
    this.rows(CALLS, counts.callAggregates);
    this.rows(EXECUTIONS, counts.executionAggregates);
    this.rows(DROPS, counts.failureDrops);
  }

  private rows<T>(table: Table<T>, rows: readonly T[]): void {
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const n = Math.min(ROWS_PER_STATEMENT, rows.length - i);
      const params: unknown[] = [];
      for (let j = i; j < i + n; j++) table.params(rows[j]!, params);
      this.statement(table, n).run(params);
    }
  }

  private statement<T>(table: Table<T>, rows: number): Database.Statement {
    let byRows = this.prepared.get(table as Table<never>);
    if (!byRows) this.prepared.set(table as Table<never>, (byRows = []));
    return (byRows[rows] ??= this.db.prepare(table.sql(valuesList(rows, table.columns))));
  }
}
