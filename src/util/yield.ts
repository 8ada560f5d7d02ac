/**
 * Lets the event loop run what is waiting (requests, timers, I/O) before going on. A loop of awaits
 * on SQLite never does by itself: better-sqlite3 answers synchronously, so each await resolves at
 * once and a long job (a 24 h alert read, a backlog of judge candidates) would hold ingest up to
 * its end.
 */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
