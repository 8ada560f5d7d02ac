/**
 * The store's two sections: `database_url` (a SQLite file, the embedded default, or a postgres://
 * URL; DATABASE_URL overrides it) and `store:` (how many failures are kept, for how long, how stored
 * arguments are masked, SQLite's durability, lock wait and checkpoints).
 */
import path from 'node:path';
import type { FromSchema } from 'json-schema-to-ts';
import type { StoredRedaction } from '../redact/stored.js';
import type { ConfigSection } from '../util/config-section.js';
import { durationMs, durationSchema as duration } from '../util/duration.js';
import type { DatabaseConfig } from './open.js';

export const databaseUrlSchema = { type: 'string', minLength: 1, default: './data/toolwatch.db' } as const;

export const databaseSection: ConfigSection<string, DatabaseConfig> = {
  key: 'database_url',
  schema: databaseUrlSchema,
  env: { names: ['DATABASE_URL'], apply: (raw, env) => env.DATABASE_URL || raw },
  build: (url, ctx) => parseDatabaseUrl(url, ctx.cwd),
};

/** A SQLite file path (sqlite:/file: prefixes removed, relative to `cwd`) or a postgres:// URL. */
export function parseDatabaseUrl(url: string, cwd: string): DatabaseConfig {
  if (/^postgres(ql)?:\/\//i.test(url)) return { kind: 'postgres', url };
  const file = url.replace(/^sqlite:(\/\/)?/i, '').replace(/^file:(\/\/)?/i, '');
  return { kind: 'sqlite', path: file === ':memory:' ? file : path.resolve(cwd, file) };
}

export const storeFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    failures_per_tool_per_minute: { type: 'integer', minimum: 1, default: 20 },
    retention_days: { type: 'integer', minimum: 1, default: 14 },
    sqlite_synchronous: { enum: ['NORMAL', 'FULL'], default: 'NORMAL' },
    sqlite_busy_timeout: { ...duration, default: '100ms' },
    sqlite_checkpoint: { enum: ['inline', 'background'], default: 'inline' },
    redact_arguments: { enum: ['secrets', 'pii', 'none'], default: 'secrets' },
  },
} as const;

export type StoreFileShape = FromSchema<typeof storeFileSchema>;

export interface StoreSettings {
  failuresPerToolPerMinute: number;
  retentionDays: number;
  sqliteSynchronous: 'NORMAL' | 'FULL';
  /** How long a SQLite statement waits for another process's lock (on the event loop) before 503. */
  sqliteBusyTimeoutMs: number;
  /** Who copies SQLite's WAL back into the file: a worker thread, or the committing connection (sqlite-checkpointer.ts). */
  sqliteCheckpoint: 'background' | 'inline';
  /** What stored arguments and trajectories are masked for (src/redact/stored.ts). */
  redactArguments: StoredRedaction;
}

export const storeSection: ConfigSection<StoreFileShape, StoreSettings> = {
  key: 'store',
  schema: storeFileSchema,
  build: (f) => ({
    failuresPerToolPerMinute: f.failures_per_tool_per_minute,
    retentionDays: f.retention_days,
    sqliteSynchronous: f.sqlite_synchronous,
    sqliteBusyTimeoutMs: durationMs(f.sqlite_busy_timeout),
    sqliteCheckpoint: f.sqlite_checkpoint,
    redactArguments: f.redact_arguments,
  }),
};
