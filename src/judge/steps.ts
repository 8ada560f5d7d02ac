/**
 * One span's facts as the step a candidate trace stores (judge_steps.payload): built, clipped, masked
 * by the store's redactor and serialised — at ingest, for every candidate, so what repeats is done
 * once: each distinct value of a batch is redacted once (memoRedactor), and each offered tool list
 * is put in its stored form, serialised and hashed once per shared definitions list (offeredTools).
 * The offered tools are stored once per distinct list (judge_offered), not in every model step:
 * they were two thirds of the steps' bytes, written at ingest for every candidate and deleted again
 * for the 90 % that are dropped.
 */
import crypto from 'node:crypto';
import type { CheckedCall, SpanFacts, ToolDef } from '../model.js';
import type { Redacted, StoreRedactor } from '../redact/stored.js';
import type { ModelStep, Step, StepCall, ToolStep } from './types.js';

// Bounds per stored field: a trajectory must stay small enough to send to a judge.
const MAX_TEXT = 16 * 1024;
const MAX_ARGS = 16 * 1024;
const MAX_SCHEMA = 8 * 1024;
const MAX_TOOLS = 64;

const clip = (s: string, n: number): string => {
  const cut = s.length > n ? `${s.slice(0, n)}…[truncated ${s.length - n} chars]` : s;
  return cut.includes('\u0000') ? cut.replaceAll('\u0000', '\uFFFD') : cut; // PostgreSQL TEXT refuses NUL
};

export const callKey = (spanId: string, callId: string | undefined, name: string): string =>
  `${spanId}\u0000${callId ?? `name:${name}`}`;

/** A model step's offered tools as stored once (judge_offered): their JSON, and its hash as the key steps refer to. */
export interface OfferedTools {
  ref: string;
  json: string;
}

/** A step's payload as stored, its offered tools (a model step that had some) and why some of its fields were left out. */
export interface StoredStep {
  kind: Step['kind'];
  payload: string;
  offered?: OfferedTools;
  omitted?: string;
}

/**
 * The JSON of the step without its offered tools — the same text as JSON.stringify of the step
 * object with `omitted` and `seq` (`seq` last: arrival order, see types.ts) — and the offered tools
 * apart (withOffered puts them back on reading), or undefined for an agent/other span, which only
 * widens the trajectory's time range. `seq` is asked for only when the span is a step (the arrival
 * counter counts steps).
 */
export function storedStep(
  f: SpanFacts,
  outcomes: ReadonlyMap<string, CheckedCall>,
  r: StoreRedactor,
  seq: () => number,
): StoredStep | undefined {
  const raw = toStep(f, outcomes);
  if (!raw) return undefined;
  const { step, omitted } = redactFields(raw, r);
  const why = omitted !== undefined ? `,"omitted":${JSON.stringify(omitted)}` : '';
  // A step always has `kind`, so its JSON ends in `}` after at least one member.
  const payload = `${JSON.stringify(step).slice(0, -1)}${why},"seq":${JSON.stringify(seq())}}`;
  const out: StoredStep = { kind: raw.kind, payload };
  if (raw.kind === 'model' && f.offered) out.offered = offeredTools(f.offered);
  if (omitted !== undefined) out.omitted = omitted;
  return out;
}

/**
 * A stored step read back: its payload with the offered tools (the judge_offered list it refers to,
 * parsed) in the place they had before they were stored apart — after the step's own fields, before
 * `omitted` and `seq` — so the step is the object it was at ingest. Steps stored with their tools
 * inside the payload (before judge_offered) come back as they are.
 */
export function withOffered(payload: string, offered: readonly ToolDef[] | undefined): Step {
  const step = JSON.parse(payload) as Step & Record<string, unknown>;
  if (offered === undefined || step.kind !== 'model') return step;
  const { omitted, seq, ...own } = step;
  const out: Record<string, unknown> = { ...own, offered };
  if (omitted !== undefined) out.omitted = omitted;
  if (seq !== undefined) out.seq = seq;
  return out as unknown as Step;
}

/** One span's facts as a step without its offered tools (storedStep adds them); agent/other spans: undefined. */
export function toStep(f: SpanFacts, outcomes: ReadonlyMap<string, CheckedCall>): Step | undefined {
  if (f.execution) {
    const e = f.execution;
    const counted = outcomes.get(callKey(f.spanId, e.callId, e.name));
    const status = e.status === 'ok' ? 'ok' : 'error';
    const s: ToolStep = {
      kind: 'tool',
      spanId: f.spanId,
      startMs: f.startTimeMs,
      endMs: f.endTimeMs,
      name: e.name,
      status,
    };
    if (e.callId) s.callId = e.callId;
    if (e.args.kind !== 'none') s.arguments = clip(e.args.raw, MAX_ARGS);
    // The step keeps ok/error; how it failed (client_error, server_error) goes with the error's text.
    const how = e.status === 'client_error' || e.status === 'server_error' ? e.status : undefined;
    const what = e.errorType ?? how;
    if (what) s.errorType = clip(how && e.errorType ? `${how}: ${e.errorType}` : what, 1000);
    if (e.result !== undefined) s.result = clip(e.result, MAX_TEXT);
    if (counted) s.outcome = counted.outcome.outcome;
    return s;
  }
  if (f.role !== 'model') return undefined;
  const s: ModelStep = {
    kind: 'model',
    spanId: f.spanId,
    startMs: f.startTimeMs,
    endMs: f.endTimeMs,
    calls: f.proposals.map((p) => toCall(f.spanId, p, outcomes)),
  };
  if (f.model) s.model = f.model;
  if (f.userMessage) s.userMessage = clip(f.userMessage, MAX_TEXT);
  if (f.outputText) s.outputText = clip(f.outputText, MAX_TEXT);
  if (f.error) s.error = clip(f.error, 1000);
  if (f.inputTokens !== undefined) s.inputTokens = f.inputTokens;
  if (f.outputTokens !== undefined) s.outputTokens = f.outputTokens;
  return s;
}

/**
 * The offered tools as a step stores them. The readers share one frozen definition object per tool
 * of a distinct definitions string (src/tools/tooldefs.ts) and every model span of a service offers
 * the same ones, so each is clipped and its schema measured once, not on every step.
 */
const storedDefs = new WeakMap<ToolDef, ToolDef>();

export function offeredAsStored(offered: readonly ToolDef[]): ToolDef[] {
  return offered.slice(0, MAX_TOOLS).map((t) => {
    if (!Object.isFrozen(t)) return toolDef(t);
    let d = storedDefs.get(t);
    if (!d) storedDefs.set(t, (d = toolDef(t)));
    return d;
  });
}

/**
 * The stored form's JSON and hash, kept per list of shared definitions: every span of one
 * definitions string gets its own copy of the list, but of the same frozen definition objects
 * (src/tools/tooldefs.ts), so a list is found by its first definition and matched item by item. A
 * few lists per first definition are kept (definition objects may be shared between definitions strings).
 */
const offeredTexts = new WeakMap<ToolDef, { defs: readonly ToolDef[]; tools: OfferedTools }[]>();

const sameDefs = (a: readonly ToolDef[], b: readonly ToolDef[]): boolean =>
  a.length === b.length && a.every((t, i) => t === b[i]);

/**
 * The key of a stored list: 128 bits of the SHA-256 of its JSON, so equal lists share one row
 * whichever service or sender offered them, and two different lists colliding is as likely as a
 * 128-bit collision.
 */
const refOf = (json: string): string => crypto.createHash('sha256').update(json).digest('hex').slice(0, 32);

export function offeredTools(offered: readonly ToolDef[]): OfferedTools {
  const head = offered[0];
  if (head === undefined || !offered.every((t) => Object.isFrozen(t))) {
    const json = JSON.stringify(offeredAsStored(offered));
    return { ref: refOf(json), json };
  }
  let known = offeredTexts.get(head);
  const hit = known?.find((k) => sameDefs(k.defs, offered));
  if (hit) return hit.tools;
  const json = JSON.stringify(offeredAsStored(offered));
  const tools = { ref: refOf(json), json };
  if (!known) offeredTexts.set(head, (known = []));
  if (known.length >= 4) known.shift();
  known.push({ defs: [...offered], tools });
  return tools;
}

/**
 * The store's redactor with what it answered kept for one batch: a call's arguments come twice (the
 * model's proposal and the tool span), a trace's user message on each of its model spans. The
 * redactor is a pure function of the value, so the answer is the same; nothing outlives the batch.
 */
export function memoRedactor(r: StoreRedactor): StoreRedactor {
  if (r.level === 'none') return r;
  const json = new Map<string, Redacted>();
  const text = new Map<string, Redacted>();
  const memo = (cache: Map<string, Redacted>, fn: (v: string) => Redacted) => (v: string) => {
    let got = cache.get(v);
    if (!got) cache.set(v, (got = fn(v)));
    return got;
  };
  return { level: r.level, json: memo(json, (v) => r.json(v)), text: memo(text, (v) => r.text(v)) };
}

function toCall(
  spanId: string,
  p: SpanFacts['proposals'][number],
  outcomes: ReadonlyMap<string, CheckedCall>,
): StepCall {
  const c: StepCall = { name: clip(p.name, 500) };
  if (p.callId) c.callId = p.callId;
  if (p.args.kind !== 'none') c.arguments = clip(p.args.raw, MAX_ARGS);
  const counted = outcomes.get(callKey(spanId, p.callId, p.name));
  if (counted) c.outcome = counted.outcome.outcome;
  return c;
}

function toolDef(t: ToolDef): ToolDef {
  const d: ToolDef = { name: clip(t.name, 500) };
  if (t.description) d.description = clip(t.description, 2000);
  if (t.parameters !== undefined) {
    const text = JSON.stringify(t.parameters);
    d.parameters = text.length <= MAX_SCHEMA ? t.parameters : { note: `schema omitted: ${text.length} chars` };
  }
  return d;
}

/**
 * A step's free-text fields through the store's redactor (arguments as JSON, so they stay JSON). A
 * field the redactor cannot handle is left out and `omitted` says which and why (a call says it in
 * `argumentsOmitted`). Names, tokens and times are kept as they are.
 */
export function redactFields(step: Step, r: StoreRedactor): { step: Step; omitted?: string } {
  if (r.level === 'none') return { step };
  const out: Record<string, unknown> = { ...step };
  const reasons: string[] = [];
  const mask = (field: string, value: string | undefined, how: 'json' | 'text') => {
    if (value === undefined) return;
    const m = how === 'json' ? r.json(value) : r.text(value);
    if (m.ok) out[field] = m.value;
    else {
      delete out[field];
      reasons.push(`${field}: ${m.reason}`);
    }
  };
  if (step.kind === 'model') {
    mask('userMessage', step.userMessage, 'text');
    mask('outputText', step.outputText, 'text');
    mask('error', step.error, 'text');
    out.calls = step.calls.map((c) => {
      if (c.arguments === undefined) return c;
      const m = r.json(c.arguments);
      if (m.ok) return { ...c, arguments: m.value };
      reasons.push(`calls[${c.name}].arguments: ${m.reason}`);
      const { arguments: _dropped, ...rest } = c;
      return { ...rest, argumentsOmitted: m.reason };
    });
  } else {
    mask('arguments', step.arguments, 'json');
    mask('result', step.result, 'json');
    mask('errorType', step.errorType, 'text');
  }
  const masked = out as unknown as Step;
  return reasons.length ? { step: masked, omitted: reasons.join('; ') } : { step: masked };
}
