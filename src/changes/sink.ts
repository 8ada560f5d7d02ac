/**
 * The batch sink that records versions and change events in every ingest batch's own transaction,
 * so they commit (or not) with the calls they were seen beside and are never written twice.
 */
import type { BatchSink } from '../pipeline/pipeline.js';
import type { Sql } from '../store/sql.js';
import { CommittedState } from './committed.js';
import { observeBatch, type ObserveLimits } from './observe.js';
import { StoredDefinitions } from './stored-definitions.js';
import { changesExtension } from './write.js';

/** What config.changes defaults to (src/changes/config.ts). */
export const DEFAULT_OBSERVE_LIMITS: ObserveLimits = { maxName: 200, maxToolsPerRequest: 256 };

/**
 * The sink over the store's SQL port: on SQLite it reads the change state once (committed.ts) and
 * from then on leaves out the sightings that would move nothing; on both engines it writes a
 * version's definition text only when it does not know it stored (stored-definitions.ts, by `now`,
 * the clock the retention job prunes by).
 */
export function changesSink(
  sql: Sql,
  limits: ObserveLimits = DEFAULT_OBSERVE_LIMITS,
  now: () => number = Date.now,
): BatchSink {
  const memo = new CommittedState();
  void memo.load(sql);
  const stored = new StoredDefinitions(now);
  return {
    collect: ({ facts, calls }) => {
      const ext = changesExtension(sql.dialect, observeBatch(facts, calls, limits), memo, stored);
      return ext ? [ext] : [];
    },
  };
}
