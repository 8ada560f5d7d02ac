/**
 * The store's two sections: `database_url` (a SQLite file, the embedded default, or a postgres://
 * URL; DATABASE_URL overrides it) and `store:` (how many failures are kept, for how long, how stored
 * arguments are masked, SQLite's durability and lock wait).
 */
import path from 'node:path';
import { durationMs, durationSchema as duration } from '../util/duration.js';
export const databaseUrlSchema = { type: 'string', minLength: 1, default: './data/toolwatch.db' };
export const databaseSection = {
    key: 'database_url',
    schema: databaseUrlSchema,
    env: { names: ['DATABASE_URL'], apply: (raw, env) => env.DATABASE_URL || raw },
    build: (url, ctx) => parseDatabaseUrl(url, ctx.cwd),
};
/** A SQLite file path (sqlite:/file: prefixes removed, relative to `cwd`) or a postgres:// URL. */
export function parseDatabaseUrl(url, cwd) {
    if (/^postgres(ql)?:\/\//i.test(url))
        return { kind: 'postgres', url };
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
        redact_arguments: { enum: ['secrets', 'pii', 'none'], default: 'secrets' },
    },
};
export const storeSection = {
    key: 'store',
    schema: storeFileSchema,
    build: (f) => ({
        failuresPerToolPerMinute: f.failures_per_tool_per_minute,
        retentionDays: f.retention_days,
        sqliteSynchronous: f.sqlite_synchronous,
        sqliteBusyTimeoutMs: durationMs(f.sqlite_busy_timeout),
        redactArguments: f.redact_arguments,
    }),
};
//# sourceMappingURL=config.js.map