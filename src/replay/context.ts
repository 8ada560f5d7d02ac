/**
 * The request context of stored failure records: the user's message and the tools offered in the
 * model request that proposed the failing call — what a failure needs to become a runnable eval case
 * when no trajectory of its trace was kept. Written in the batch's own transaction, only for the
 * failure records the batch keeps (so it grows with errors, not traffic); a tool set is stored once
 * by content and shared by every failure that saw it.
 *
 * The user's message goes through the stored redactor (store.redact_arguments) like the failure
 * record's own arguments and message, failing closed: a message the redactor cannot handle is not
 * stored, and the reason is kept in its place (user_message_omitted).
 */
import { createHash } from 'node:crypto';
import type { SpanFacts, ToolDef } from '../model.js';
import type { FailureContextRows } from '../pipeline/pipeline.js';
import { storedId } from '../pipeline/call-labels.js';
import type { StoreRedactor } from '../redact/stored.js';
import { optStr } from '../store/rows.js';
import { storableText } from '../store/storable-text.js';
import { valuesList, type BatchExtension, type Row, type Sql } from '../store/sql.js';
import type { FailureRecord } from '../store/store.js';

const MAX_TEXT = 16 * 1024;
const MAX_SCHEMA = 64 * 1024;
const MAX_TOOLS = 128;
const CHUNK = 200;
/** Redaction sees this much past the clip, so a secret cut by the clip was still seen whole. */
const REDACT_MARGIN = 8 * 1024;

const clip = (s: string, n: number): string => {
  const cut = s.length > n ? `${s.slice(0, n)}…[truncated ${s.length - n} chars]` : s;
  return cut.includes('\u0000') ? cut.replaceAll('\u0000', '\uFFFD') : cut; // PostgreSQL TEXT refuses NUL
};

/** Tool definitions as stored and exported (name, description, schema; an oversized schema becomes a note). */
export function storedTools(defs: readonly ToolDef[]): ToolDef[] {
  return defs.slice(0, MAX_TOOLS).map((t) => {
    const d: ToolDef = { name: clip(t.name, 500) };
    if (t.description) d.description = clip(t.description, 4000);
    if (t.parameters !== undefined) {
      const text = JSON.stringify(t.parameters) ?? '';
      d.parameters =
        text.length <= MAX_SCHEMA ? t.parameters : { 'x-toolwatch-omitted': `schema of ${text.length} chars not kept` };
    }
    return d;
  });
}

/** The user's message as stored: redacted (seeing a margin past the clip), then clipped. */
function storedMessage(
  user: string,
  redactor: StoreRedactor,
): { ok: true; value: string } | { ok: false; reason: string } {
  const over = user.length - MAX_TEXT;
  const r = redactor.text(over > REDACT_MARGIN ? user.slice(0, MAX_TEXT + REDACT_MARGIN) : user);
  if (!r.ok) return r;
  const text = over > 0 ? `${r.value.slice(0, MAX_TEXT)}…[truncated ${over} chars]` : r.value;
  return { ok: true, value: storableText(text) };
}

/** The rows for one batch's kept failure records; undefined when none of their spans is in `facts`. */
export function failureContextExtension(
  failures: readonly FailureRecord[],
  facts: readonly SpanFacts[],
  nowMs: number,
  redactor: StoreRedactor,
): FailureContextRows | undefined {
  const wanted = new Set(failures.map((f) => `${f.traceId}\u0000${f.spanId}`));
  const contexts: unknown[][] = [];
  const sets = new Map<string, string>();
  let redactionFailures = 0;
  for (const f of facts) {
    // Keyed as the failure records store their ids, so the two join.
    const traceId = storedId(f.traceId);
    const spanId = storedId(f.spanId);
    const key = `${traceId}\u0000${spanId}`;
    if (!wanted.has(key)) continue;
    wanted.delete(key);
    // userMessage is parsed lazily from the input history: only failing requests pay for it.
    const user = f.userMessage;
    let hash: string | null = null;
    if (f.offered?.length) {
      const json = JSON.stringify(storedTools(f.offered));
      hash = createHash('sha256').update(json).digest('hex').slice(0, 32);
      sets.set(hash, json);
    }
    if (user === undefined && hash === null) continue;
    const stored = user === undefined ? undefined : storedMessage(user, redactor);
    if (stored && !stored.ok) redactionFailures++;
    contexts.push([
      traceId,
      spanId,
      stored?.ok ? stored.value : null,
      stored && !stored.ok ? stored.reason : null,
      hash,
      Math.floor(nowMs),
    ]);
  }
  if (contexts.length === 0) return undefined;
  const extension: BatchExtension = (tx) => {
    const setRows = [...sets].map(([h, json]) => [h, json, Math.floor(nowMs)]);
    for (let i = 0; i < setRows.length; i += CHUNK) {
      const part = setRows.slice(i, i + CHUNK);
      // The newest use keeps a shared tool set alive as long as any failure that refers to it.
      tx.run(
        `INSERT INTO tool_sets (hash, tools, time_ms) VALUES ${valuesList(part.length, 3)}
         ON CONFLICT (hash) DO UPDATE SET time_ms = excluded.time_ms`,
        part.flat(),
      );
    }
    for (let i = 0; i < contexts.length; i += CHUNK) {
      const part = contexts.slice(i, i + CHUNK);
      tx.run(
        `INSERT INTO failure_contexts (trace_id, span_id, user_message, user_message_omitted, tools_hash, time_ms)
         VALUES ${valuesList(part.length, 6)} ON CONFLICT (trace_id, span_id) DO NOTHING`,
        part.flat(),
      );
    }
  };
  return { extension, redactionFailures };
}

export interface FailureContext {
  userMessage?: string;
  /** Why the user's message was not stored (the stored redactor refused it). */
  userMessageOmitted?: string;
  tools?: ToolDef[];
}

/** Contexts of these (trace, span) pairs, by `${traceId}\0${spanId}`. */
export async function loadFailureContexts(
  sql: Sql,
  keys: readonly { traceId: string; spanId: string }[],
): Promise<Map<string, FailureContext>> {
  const out = new Map<string, FailureContext>();
  const traceIds = [...new Set(keys.map((k) => k.traceId))];
  const wanted = new Set(keys.map((k) => `${k.traceId}\u0000${k.spanId}`));
  const toolSets = new Map<string, ToolDef[] | undefined>();
  for (let i = 0; i < traceIds.length; i += CHUNK) {
    const part = traceIds.slice(i, i + CHUNK);
    const rows = await sql.all<Row>(
      `SELECT c.trace_id, c.span_id, c.user_message, c.user_message_omitted, c.tools_hash, s.tools
       FROM failure_contexts c LEFT JOIN tool_sets s ON s.hash = c.tools_hash
       WHERE c.trace_id IN (${part.map(() => '?').join(', ')})`,
      part,
    );
    for (const r of rows) {
      const key = `${String(r.trace_id)}\u0000${String(r.span_id)}`;
      if (!wanted.has(key)) continue;
      const hash = optStr(r.tools_hash);
      if (hash && !toolSets.has(hash)) {
        let tools: ToolDef[] | undefined;
        try {
          tools = JSON.parse(String(r.tools)) as ToolDef[];
        } catch {
          tools = undefined; // a lost or unreadable set: the case just names no tools
        }
        toolSets.set(hash, tools);
      }
      const user = optStr(r.user_message);
      const omitted = optStr(r.user_message_omitted);
      const tools = hash ? toolSets.get(hash) : undefined;
      out.set(key, {
        ...(user !== undefined ? { userMessage: user } : {}),
        ...(omitted !== undefined ? { userMessageOmitted: omitted } : {}),
        ...(tools ? { tools } : {}),
      });
    }
  }
  return out;
}

/** Retention: contexts older than the cutoff, and tool sets no kept context used since. */
export async function pruneFailureContexts(sql: Sql, beforeMs: number): Promise<number> {
  return sql.tx(async (tx) => {
    let removed = await tx.run('DELETE FROM failure_contexts WHERE time_ms < ?', [beforeMs]);
    removed += await tx.run('DELETE FROM tool_sets WHERE time_ms < ?', [beforeMs]);
    return removed;
  });
}
