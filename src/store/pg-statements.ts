/**
 * The statements of one group commit — the core tables' and the features' (problems, changes, the
 * judge's trajectories …: about fifty small INSERTs per 100-span batch) — in one round trip, as one
 * extended-protocol pipeline: for each statement Parse, Bind, Describe and Execute, and one Sync
 * after the last, encoded into one buffer (pg-wire.ts), written to the socket at once and answered
 * at once. A text that recurs becomes a named prepared statement on each connection, parsed and planned there once: planning the
 * problems' statements again for every batch was most of the server's time per commit (0.5 ms for
 * the problems upsert alone), and the server shared its core with everything else.
 *
 * Values are bound as node-postgres binds any parametrised query's (as its prepareValue: untyped
 * text), so the server resolves every type as it always did. The statements run in order in the
 * caller's transaction; at the first error the server skips the rest up to the Sync and the
 * pipeline fails with that error, as awaiting them one by one did.
 */
import pg from 'pg';
import { WireWriter } from './pg-wire.js';
import { toPg } from './sql.js';

/** A statement and its values, `?` placeholders (as the SQL port's). */
export type Statement = readonly [sql: string, params: readonly unknown[]];

/** What of node-postgres's Connection the pipeline uses: its socket, and what it knows of the session. */
interface Connection {
  sendCopyFail(msg: string): void;
  parsedStatements: Record<string, string>;
  stream: { writable?: boolean; write(b: Buffer): boolean };
  on(event: 'parseComplete', fn: () => void): void;
  removeListener(event: 'parseComplete', fn: () => void): void;
}

/**
 * A text becomes a named statement the second time it is seen: texts made for one row count (a
 * multi-row INSERT) may never recur, and each name costs every connection a cached plan. Past
 * MAX_NAMED names, new texts are parsed each time (as unnamed statements).
 */
const MAX_NAMED = 256;
const names = new Map<string, string>();
const seenOnce = new Set<string>();

function nameOf(text: string): string {
  const name = names.get(text);
  if (name !== undefined) return name;
  if (names.size >= MAX_NAMED) return '';
  if (!seenOnce.has(text)) {
    if (seenOnce.size >= 4 * MAX_NAMED) seenOnce.clear();
    seenOnce.add(text);
    return '';
  }
  seenOnce.delete(text);
  const fresh = `tw_${names.size + 1}`;
  names.set(text, fresh);
  return fresh;
}

/** Each statement's `$n` text, once: the same few texts come back group after group. */
const pgTexts = new Map<string, string>();

function pgText(sql: string): string {
  let text = pgTexts.get(sql);
  if (text === undefined) {
    if (pgTexts.size >= 4 * MAX_NAMED) pgTexts.clear();
    pgTexts.set(sql, (text = toPg(sql)));
  }
  return text;
}

type Field = { name: string; dataTypeID: number; format: string };
type ResultBuilder = pg.QueryResult & {
  addFields(fields: Field[]): void;
  parseRow(values: unknown[]): unknown;
  addRow(row: unknown): void;
  addCommandComplete(msg: unknown): void;
};
const newResult = () => new (pg.Result as unknown as new () => ResultBuilder)();

/** A Submittable (node-postgres's custom query interface): the client hands it the connection's answers. */
class Pipeline {
  callback?: (err: Error | null, results?: pg.QueryResult[]) => void;
  private readonly results: pg.QueryResult[] = [];
  private current = newResult();
  /** The Parses sent, in order (name '' for an unnamed one): the server answers them in that order. */
  private readonly parsing: { name: string; text: string }[] = [];
  private parsed = 0;
  private connection?: Connection;
  private done = false;
  /** A value node-postgres could not bind: nothing after it was sent, and the pipeline fails with it. */
  private unbound?: Error;
  /** A named statement is known to the connection once its Parse is answered (not when one fails or is skipped). */
  private readonly onParseComplete = () => {
    const p = this.parsing[this.parsed++];
    if (p?.name && this.connection) this.connection.parsedStatements[p.name] = p.text;
  };

  constructor(private readonly items: readonly { text: string; name: string; values: readonly unknown[] }[]) {}

  /** What it runs, for whoever looks at the client's queries (built only then: a group's is long). */
  get text(): string {
    return this.items.map((s) => s.text).join(';\n');
  }

  submit(connection: Connection): void {
    this.connection = connection;
    connection.on('parseComplete', this.onParseComplete);
    const sentNames = new Set<string>();
    const wire = new WireWriter();
    for (const s of this.items) {
      if (s.name === '' || (connection.parsedStatements[s.name] === undefined && !sentNames.has(s.name))) {
        wire.parse(s.name, s.text);
        this.parsing.push(s);
        if (s.name) sentNames.add(s.name);
      }
      const bound = wire.position;
      try {
        wire.bind(s.name, s.values);
      } catch (err) {
        // A value it cannot encode: the statements before it still run, and fail the pipeline's end.
        wire.truncate(bound);
        this.unbound = err as Error;
        break;
      }
      wire.describePortal();
      wire.execute();
    }
    // Whatever was written, the Sync ends it: the server answers up to there and is ready again.
    wire.sync();
    if (connection.stream.writable !== false) connection.stream.write(wire.bytes());
  }

  handleRowDescription(msg: { fields: Field[] }): void {
    this.current.addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    this.current.addRow(this.current.parseRow(msg.fields));
  }

  handleCommandComplete(msg: unknown): void {
    this.current.addCommandComplete(msg);
    this.results.push(this.current);
    this.current = newResult();
  }

  handleEmptyQuery(): void {
    this.results.push(this.current);
    this.current = newResult();
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail('COPY is not supported in a pipeline');
  }

  handleCopyData(): void {}

  /** The first error: the server skipped the rest; the client forgets this query now (its Sync's answer is the client's). */
  handleError(err: Error): void {
    this.finish(err);
  }

  handleReadyForQuery(): void {
    this.finish(null);
  }

  private finish(err: Error | null): void {
    if (this.done) return;
    this.done = true;
    this.connection?.removeListener('parseComplete', this.onParseComplete);
    if (err) this.callback?.(err);
    else if (this.unbound) this.callback?.(this.unbound);
    else if (this.results.length !== this.items.length)
      this.callback?.(new Error(`${this.items.length} statements answered ${this.results.length} results`));
    else this.callback?.(null, this.results);
  }
}

/** Runs the statements in order on `c` (inside its transaction) in one round trip; each statement's result, in order. */
export function runStatements(c: pg.PoolClient, statements: readonly Statement[]): Promise<pg.QueryResult[]> {
  if (statements.length === 0) return Promise.resolve([]);
  const items = statements.map(([sql, params]) => {
    const text = pgText(sql);
    return { text, name: nameOf(text), values: params };
  });
  return new Promise((resolve, reject) => {
    const p = new Pipeline(items);
    p.callback = (err, results) => (err ? reject(err) : resolve(results!));
    c.query(p as unknown as pg.Submittable);
  });
}
