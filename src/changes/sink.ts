/**
 * The batch sink that records versions and change events in every ingest batch's own transaction,
 * so they commit (or not) with the calls they were seen beside and are never written twice.
 */
import type { BatchSink } from '../pipeline/pipeline.js';
import type { Sql } from '../store/sql.js';
import { observeBatch, type ObserveLimits } from './observe.js';
import { changesExtension } from './store.js';

/** What config.changes defaults to (src/changes/config.ts). */
export const DEFAULT_OBSERVE_LIMITS: ObserveLimits = { maxName: 200, maxToolsPerRequest: 256 };

export function changesSink(dialect: Sql['dialect'], limits: ObserveLimits = DEFAULT_OBSERVE_LIMITS): BatchSink {
  return {
    collect: ({ facts, calls }) => {
      const ext = changesExtension(dialect, observeBatch(facts, calls, limits));
      return ext ? [ext] : [];
    },
  };
}
