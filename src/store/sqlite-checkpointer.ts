/**
 * WAL checkpoints off the event loop (`store.sqlite_checkpoint: background`, opt-in). SQLite copies
 * the WAL back into the database file when a commit finds it past 1,000 pages, inside that commit,
 * on the connection's thread — ours is the event loop, so at load about one commit in seventy took
 * 4–18 ms instead of 0.1, half of it waiting for the disk's sync, with nothing else answered
 * meanwhile. Here a worker thread with a connection of its own does it, as SQLite's documentation
 * suggests for applications that cannot wait on a checkpoint: PASSIVE checkpoints, which never block
 * a writer or a reader, about every 1,000 pages as SQLite would. The main connection keeps an
 * automatic checkpoint at a higher mark (BACKSTOP_PAGES) in case the worker falls behind, and goes
 * back to SQLite's own if the worker fails, so the WAL stays bounded either way. Not the default: the
 * worker's isolate costs about 10 MB of RSS, and on the benchmark's one core the checkpoint's work
 * only moves between two threads of that core (docs/operations.md, Storage).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** SQLite's own automatic checkpoint mark, in pages. */
export const SQLITE_DEFAULT_PAGES = 1000;
/** The main connection's mark while the worker checkpoints: only reached if the worker falls far behind. */
export const BACKSTOP_PAGES = 10 * SQLITE_DEFAULT_PAGES;

export interface CheckpointerOptions {
  /** The database file (the main connection has it open, in WAL mode). */
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  /** Sets the main connection's automatic checkpoint mark, in pages (PRAGMA wal_autocheckpoint). */
  setAutocheckpoint: (pages: number) => void;
  /** The worker could not open the file or stopped: the main connection checkpoints again, as SQLite does. */
  onProblem: (message: string) => void;
  /** Each checkpoint that copied pages: how many, and how many the WAL held (for tests and logs). */
  onCheckpoint?: (copied: number, walPages: number) => void;
  /**
   * Bounds of the worker's wait between looks at the WAL (it aims at ~1,000 pages a checkpoint):
   * 100 ms and 2 s by default — a burst after a quiet spell then writes a few thousand pages at most
   * before the next look, well under BACKSTOP_PAGES.
   */
  minIntervalMs?: number;
  maxIntervalMs?: number;
}

/** Messages from the worker. */
type FromWorker = { kind: 'checkpoint'; copied: number; wal: number } | { kind: 'problem'; message: string };

/**
 * The worker, as CommonJS evaluated from this string rather than a file of its own: the same text
 * runs from the build and from the sources under test, and it needs nothing but the driver. It looks
 * at the database's `data_version` (which moves when another connection commits) and skips the
 * checkpoint when nothing was written; after each checkpoint it scales its next wait so that the
 * next one copies about `target` pages, within [min, max].
 */
const WORKER = `
const { parentPort, workerData: w } = require('node:worker_threads');
const Database = require(w.driver);
let db;
try {
  db = new Database(w.path, { fileMustExist: true });
  db.pragma('busy_timeout = 0');
  db.pragma('synchronous = ' + w.synchronous);
} catch (err) {
  parentPort.postMessage({ kind: 'problem', message: 'cannot open the database: ' + (err && err.message) });
  process.exit(1);
}
// Unknown at first: what was written before the worker started is checkpointed at its first look.
let version;
let wait = w.minMs;
let timer;
const look = () => {
  try {
    const now = db.pragma('data_version', { simple: true });
    if (now !== version) {
      version = now;
      const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
      if (r.checkpointed > 0) parentPort.postMessage({ kind: 'checkpoint', copied: r.checkpointed, wal: r.log });
      // An empty WAL (the first look, or the main connection's own mark reached) says nothing of the rate.
      if (r.log > 0) wait = Math.min(w.maxMs, Math.max(w.minMs, Math.round((wait * w.target) / r.log)));
    }
  } catch (err) {
    parentPort.postMessage({ kind: 'problem', message: 'checkpoint failed: ' + (err && err.message) });
    db.close();
    process.exit(1);
  }
  timer = setTimeout(look, wait);
};
timer = setTimeout(look, wait);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearTimeout(timer);
  db.close();
  process.exit(0);
});
`;

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private stopping = false;
  private failed = false;

  constructor(private readonly opts: CheckpointerOptions) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        driver,
        path: opts.path,
        synchronous: opts.synchronous,
        target: SQLITE_DEFAULT_PAGES,
        minMs: opts.minIntervalMs ?? 100,
        maxMs: opts.maxIntervalMs ?? 2000,
      },
    });
    // A store that is never closed (a process on its way out) must not be kept alive by its checkpointer.
    this.worker.unref();
    this.worker.on('message', (m: FromWorker) => {
      if (m.kind === 'checkpoint') this.opts.onCheckpoint?.(m.copied, m.wal);
      else this.fail(m.message);
    });
    this.worker.on('error', (err) => this.fail(`the worker failed: ${err.message}`));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        if (!this.stopping && code !== 0) this.fail(`the worker exited with code ${code}`);
        resolve();
      }),
    );
    opts.setAutocheckpoint(BACKSTOP_PAGES);
  }

  /** Stops the worker (its connection closed) before the main connection closes. */
  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.worker.postMessage('stop');
    }
    const timeout = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 5000).unref());
    if ((await Promise.race([this.exited, timeout])) === 'late') await this.worker.terminate();
  }

  /** Once: the main connection checkpoints again as SQLite does, and the operator is told why. */
  private fail(message: string): void {
    if (this.failed || this.stopping) return;
    this.failed = true;
    try {
      this.opts.setAutocheckpoint(SQLITE_DEFAULT_PAGES);
    } catch {
      // The main connection is closing: nothing left to checkpoint for.
    }
    this.opts.onProblem(message);
  }
}
