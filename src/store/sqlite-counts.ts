/**
 * The rows of a SQLite write that go as multi-row statements with positional parameters: the count
 * rows (call and execution minutes, failure drops, as upserts), the failure records and the dedupe
 * journal's rows — one statement per table for a usual group instead of one per row with its
 * parameters read from an object by name (each statement is a call into the driver, a bind and a
 * step whatever it carries). SQLite applies a multi-row statement row by row, so a key twice in one
 * upsert adds up as two statements would, and an INSERT's rows get their ids in the order given.
 */
import type Database from 'better-sqlite3';
import { valuesList } from './sql.js';
import type { CallAggregate, ExecutionAggregate, FailureDrop, FailureRecord, LedgerRecord } from './store.js';

/** Rows and values per statement at most (far below SQLite's parameter limit); a statement per row count is kept. */
const ROWS_PER_STATEMENT = 64;
const VALUES_PER_STATEMENT = 512;

interface Table<T> {
  columns: number;
  sql: (values: string) => string;
  /** Writes the row's values into `out` from `at`. */
  params: (row: T, out: unknown[], at: number) => void;
}

const CALLS: Table<CallAggregate> = {
  columns: 8,
  sql: (values) => `INSERT INTO call_minutes (minute, source, service, model, tool, outcome, reason, count)
    VALUES ${values}
    ON CONFLICT (minute, source, service, model, tool, outcome, reason) DO UPDATE SET count = count + excluded.count`,
  params: (r, out, i) => {
    out[i] = r.minute;
    out[i + 1] = r.source;
    out[i + 2] = r.service;
    out[i + 3] = r.model;
    out[i + 4] = r.tool;
    out[i + 5] = r.outcome;
    out[i + 6] = r.reason;
    out[i + 7] = r.count;
  },
};

const EXECUTIONS: Table<ExecutionAggregate> = {
  columns: 8,
  sql: (values) => `INSERT INTO execution_minutes (minute, source, service, model, tool, status, call_outcome, count)
    VALUES ${values}
    ON CONFLICT (minute, source, service, model, tool, status, call_outcome) DO UPDATE SET count = count + excluded.count`,
  params: (r, out, i) => {
    out[i] = r.minute;
    out[i + 1] = r.source;
    out[i + 2] = r.service;
    out[i + 3] = r.model;
    out[i + 4] = r.tool;
    out[i + 5] = r.status;
    out[i + 6] = r.callOutcome;
    out[i + 7] = r.count;
  },
};

const DROPS: Table<FailureDrop> = {
  columns: 4,
  sql: (values) => `INSERT INTO failure_drops (minute, service, tool, dropped) VALUES ${values}
    ON CONFLICT (minute, service, tool) DO UPDATE SET dropped = dropped + excluded.dropped`,
  params: (d, out, i) => {
    out[i] = d.minute;
    out[i + 1] = d.service;
    out[i + 2] = d.tool;
    out[i + 3] = d.dropped;
  },
};

const FAILURES: Table<FailureRecord> = {
  columns: 15,
  sql: (values) =>
    `INSERT INTO failures (time_ms, source, service, model, tool, name, outcome, trace_id, span_id, call_id, arguments,
      errors, message, arguments_omitted, reason) VALUES ${values}`,
  params: (f, out, i) => {
    out[i] = f.timeMs;
    out[i + 1] = f.source;
    out[i + 2] = f.service;
    out[i + 3] = f.model;
    out[i + 4] = f.tool;
    out[i + 5] = f.name;
    out[i + 6] = f.outcome;
    out[i + 7] = f.traceId;
    out[i + 8] = f.spanId;
    out[i + 9] = f.callId ?? null;
    out[i + 10] = f.arguments ?? null;
    out[i + 11] = JSON.stringify(f.errors);
    out[i + 12] = f.message;
    out[i + 13] = f.argumentsOmitted ?? null;
    out[i + 14] = f.reason ?? null;
  },
};

const LEDGER: Table<LedgerRecord> = {
  columns: 3,
  sql: (values) => `INSERT INTO ledger_batches (time_ms, traces, body) VALUES ${values}`,
  params: (r, out, i) => {
    out[i] = r.timeMs;
    out[i + 1] = r.traces;
    out[i + 2] = r.body;
  },
};

/** The count rows of a batch, or of a group summed (group-counts.ts). */
interface CountRows {
  callAggregates: readonly CallAggregate[];
  executionAggregates: readonly ExecutionAggregate[];
  failureDrops: readonly FailureDrop[];
}

export class SqliteCounts {
  private readonly prepared = new Map<Table<never>, Database.Statement[]>();

  constructor(private readonly db: Database.Database) {}

  write(counts: CountRows): void {
    this.rows(CALLS, counts.callAggregates);
    this.rows(EXECUTIONS, counts.executionAggregates);
    this.rows(DROPS, counts.failureDrops);
  }

  /** Failure records, in order (their ids follow it). */
  failures(rows: readonly FailureRecord[]): void {
    this.rows(FAILURES, rows);
  }

  /** Dedupe journal rows, in order (their ids follow it). */
  ledger(rows: readonly LedgerRecord[]): void {
    this.rows(LEDGER, rows);
  }

  private rows<T>(table: Table<T>, rows: readonly T[]): void {
    const perStatement = Math.min(ROWS_PER_STATEMENT, Math.floor(VALUES_PER_STATEMENT / table.columns));
    for (let i = 0; i < rows.length; i += perStatement) {
      const n = Math.min(perStatement, rows.length - i);
      // Sized once and filled by index: no growing by push.
      const params: unknown[] = new Array(n * table.columns);
      for (let j = 0; j < n; j++) table.params(rows[i + j]!, params, j * table.columns);
      // Spread: better-sqlite3 binds an array argument through V8's API element by element (sqlite-sql.ts).
      this.statement(table, n).run(...params);
    }
  }

  private statement<T>(table: Table<T>, rows: number): Database.Statement {
    let byRows = this.prepared.get(table as Table<never>);
    if (!byRows) this.prepared.set(table as Table<never>, (byRows = []));
    return (byRows[rows] ??= this.db.prepare(table.sql(valuesList(rows, table.columns))));
  }
}
