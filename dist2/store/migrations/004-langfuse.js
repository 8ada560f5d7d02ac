// The Langfuse source's sync state, the observation ids of the overlap (so a re-read after a
// restart or a crash mid-window is not counted again) and the score writes waiting to be sent.
// Seen ids are kept only for the overlap and the window in progress, then pruned.
export const langfuse = {
    version: 4,
    name: 'langfuse: source state, seen observations, score outbox',
    sqlite: `
    CREATE TABLE langfuse_state (
      source TEXT PRIMARY KEY, watermark_ms INTEGER, mode TEXT NOT NULL,
      last_error TEXT, last_error_ms INTEGER, last_success_ms INTEGER,
      observations INTEGER NOT NULL, calls INTEGER NOT NULL, windows INTEGER NOT NULL,
      updated_ms INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE langfuse_seen (
      observation_id TEXT PRIMARY KEY, start_ms INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX langfuse_seen_start ON langfuse_seen (start_ms);
    CREATE TABLE langfuse_score_outbox (
      id TEXT PRIMARY KEY, body TEXT NOT NULL, attempts INTEGER NOT NULL,
      next_ms INTEGER NOT NULL, created_ms INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX langfuse_score_outbox_next ON langfuse_score_outbox (next_ms);
  `,
    postgres: `
    CREATE TABLE langfuse_state (
      source TEXT PRIMARY KEY, watermark_ms BIGINT, mode TEXT NOT NULL,
      last_error TEXT, last_error_ms BIGINT, last_success_ms BIGINT,
      observations BIGINT NOT NULL, calls BIGINT NOT NULL, windows BIGINT NOT NULL,
      updated_ms BIGINT NOT NULL
    );
    CREATE TABLE langfuse_seen (
      observation_id TEXT PRIMARY KEY, start_ms BIGINT NOT NULL
    );
    CREATE INDEX langfuse_seen_start ON langfuse_seen (start_ms);
    CREATE TABLE langfuse_score_outbox (
      id TEXT PRIMARY KEY, body TEXT NOT NULL, attempts INTEGER NOT NULL,
      next_ms BIGINT NOT NULL, created_ms BIGINT NOT NULL
    );
    CREATE INDEX langfuse_score_outbox_next ON langfuse_score_outbox (next_ms);
  `,
};
//# sourceMappingURL=004-langfuse.js.map