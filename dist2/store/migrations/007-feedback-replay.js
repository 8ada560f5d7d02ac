// Issue 12, closing the loop from production to the golden set:
// - feedback: one row per trace and source (the latest value wins); read by the judge's
//   feedback stratum, the negative_feedback_rate rule and the export.
// - failure_contexts / tool_sets: what a stored failure record needs to become a runnable eval case —
//   the user's message and the tools offered in the request that proposed it. Written only for the
//   failure records kept (so they grow with errors, not traffic); a tool set is stored once by content.
//   The message is redacted as stored arguments are (store.redact_arguments); one the redactor could
//   not handle is not stored, and user_message_omitted says why (as failures.arguments_omitted).
// - failures (trace_id): the export and feedback look failures up by trace.
// - judge_verdicts: the agent's tokens and tool calls of the judged trajectory (tokens per success).
// - langfuse_state: a watermark of its own for the user-feedback scores pull.
const tables = (t) => `
    CREATE TABLE feedback (
      trace_id TEXT NOT NULL, source TEXT NOT NULL, service TEXT NOT NULL, value ${t.real} NOT NULL,
      comment TEXT, origin TEXT NOT NULL, time_ms ${t.bigint} NOT NULL, received_ms ${t.bigint} NOT NULL,
      PRIMARY KEY (trace_id, source)
    );
    CREATE INDEX feedback_time ON feedback (time_ms);
    CREATE TABLE failure_contexts (
      trace_id TEXT NOT NULL, span_id TEXT NOT NULL, user_message TEXT, user_message_omitted TEXT,
      tools_hash TEXT, time_ms ${t.bigint} NOT NULL,
      PRIMARY KEY (trace_id, span_id)
    );
    CREATE INDEX failure_contexts_time ON failure_contexts (time_ms);
    CREATE TABLE tool_sets (hash TEXT PRIMARY KEY, tools TEXT NOT NULL, time_ms ${t.bigint} NOT NULL);
    CREATE INDEX failures_trace ON failures (trace_id);
    ALTER TABLE judge_verdicts ADD COLUMN agent_tokens ${t.bigint};
    ALTER TABLE judge_verdicts ADD COLUMN agent_tool_calls INTEGER;
    ALTER TABLE langfuse_state ADD COLUMN feedback_watermark_ms ${t.bigint};
    ALTER TABLE langfuse_state ADD COLUMN feedback_mode TEXT;
    ALTER TABLE langfuse_state ADD COLUMN feedback_scores ${t.bigint} NOT NULL DEFAULT 0;
`;
export const feedbackReplay = {
    version: 7,
    name: 'feedback, failure contexts and tool sets for export, verdict efficiency, Langfuse feedback watermark',
    sqlite: tables({ bigint: 'INTEGER', real: 'REAL' }),
    postgres: tables({ bigint: 'BIGINT', real: 'DOUBLE PRECISION' }),
};
//# sourceMappingURL=007-feedback-replay.js.map