/**
 * The live Python runs in ../shared/fixtures/live-python/ (spans captured next to the OTLP exporter,
 * one JSON object a line, see that folder's README) as the OTLP/JSON request the exporter sent, and
 * the calls each run's model proposed with the outcome its offered tools give them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { countedTool, type OutcomeName } from '../../src/model.js';

export const LIVE_PYTHON = path.resolve(process.cwd(), '../shared/fixtures/live-python');

export const LIVE_RUNS = ['logfire', 'logfire-stream', 'langgraph', 'strands', 'openai-agents'] as const;
export type LiveRun = (typeof LIVE_RUNS)[number];

export interface LiveProposal {
  id: string;
  name: string;
  arguments: string;
  outcome: OutcomeName;
  case: string;
  offered: string[];
  stream: boolean;
}

interface LiveSpan {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  kind: string;
  start: number | string;
  end: number | string;
  scope: string;
  scope_version: string;
  service: string;
  status: string;
  attributes: Record<string, unknown>;
  events?: { name: string; time?: number | string; attributes?: Record<string, unknown> }[];
}

type Json = Record<string, unknown>;

const KINDS: Record<string, number> = {
  'SpanKind.INTERNAL': 1,
  'SpanKind.SERVER': 2,
  'SpanKind.CLIENT': 3,
  'SpanKind.PRODUCER': 4,
  'SpanKind.CONSUMER': 5,
};
const STATUS: Record<string, number> = { 'StatusCode.UNSET': 0, 'StatusCode.OK': 1, 'StatusCode.ERROR': 2 };

/** A Python attribute value (str, bool, int, float or a homogeneous list) as an OTLP/JSON AnyValue. */
function anyValue(v: unknown): Json {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  return { stringValue: JSON.stringify(v) };
}

function keyValues(map: Record<string, unknown> | undefined): Json[] {
  return Object.entries(map ?? {}).map(([key, value]) => ({ key, value: anyValue(value) }));
}

/** The run's spans as one ExportTraceServiceRequest, grouped by service and scope as the SDK groups them. */
export function liveRequest(run: LiveRun): Json {
  const lines = readFileSync(path.join(LIVE_PYTHON, `${run}.spans.jsonl`), 'utf8').split('\n');
  const spans = lines.filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as LiveSpan);
  const byService = new Map<string, Map<string, LiveSpan[]>>();
  for (const s of spans) {
    const scopes = byService.get(s.service) ?? new Map<string, LiveSpan[]>();
    byService.set(s.service, scopes);
    const key = `${s.scope}\n${s.scope_version}`;
    scopes.set(key, [...(scopes.get(key) ?? []), s]);
  }
  return {
    resourceSpans: [...byService].map(([service, scopes]) => ({
      resource: { attributes: keyValues({ 'service.name': service }) },
      scopeSpans: [...scopes].map(([key, list]) => {
        const [name, version] = key.split('\n') as [string, string];
        return {
          scope: version === '' ? { name } : { name, version },
          spans: list.map((s) => ({
            traceId: s.trace_id,
            spanId: s.span_id,
            ...(s.parent_id ? { parentSpanId: s.parent_id } : {}),
            name: s.name,
            kind: KINDS[s.kind] ?? 1,
            startTimeUnixNano: String(s.start),
            endTimeUnixNano: String(s.end),
            attributes: keyValues(s.attributes),
            // The capture kept no event times; the SDK stamps them within the span.
            events: (s.events ?? []).map((e) => ({
              name: e.name,
              timeUnixNano: String(e.time ?? s.start),
              attributes: keyValues(e.attributes),
            })),
            status: { code: STATUS[s.status] ?? 0 },
          })),
        };
      }),
    })),
  };
}

export function liveProposals(run: LiveRun): LiveProposal[] {
  const all = JSON.parse(readFileSync(path.join(LIVE_PYTHON, 'proposals.json'), 'utf8')) as Record<
    string,
    LiveProposal[]
  >;
  return all[run] ?? [];
}

/**
 * Calls whose proposal the instrumentation exported as something else than the model sent, so the
 * outcome toolwatch can give is the one of what was exported, not of what was proposed.
 */
const EXPORTED_AS: Record<string, { outcome: OutcomeName; reason?: string; why: string }> = {
  call_strands_278: {
    outcome: 'SchemaMismatch',
    why: 'Strands replaces arguments that are not JSON by {} before any span sees them; {} lacks the required city',
  },
  call_strands_281: {
    outcome: 'unvalidated',
    reason: 'no_schema',
    why: 'the offered tools are named only on invoke_agent (gen_ai.agent.tools, ended after the calls); the invented tool ran with no schema',
  },
  call_openai_agents_191: {
    outcome: 'unvalidated',
    reason: 'no_schema',
    why: 'the model span carries no definitions and no tool runs for an invented name, so no span has the offered tools',
  },
};

/**
 * The InvalidJson cause each case's broken arguments must get. `badjson` is `{"city": Paris`: a bare
 * word where a value belongs — the text fails at `P`, before its end, and no run's finish reason is
 * `length` — so it is `other`, not `truncated`.
 */
const INVALID_JSON_CAUSE: Record<string, string> = { badjson: 'other' };

/**
 * The outcome (and unvalidated reason or InvalidJson cause) a call must be counted with: the
 * proposal's, unless its exported form says otherwise.
 */
export function exportedOutcome(p: LiveProposal): { outcome: OutcomeName; reason: string } {
  const e = EXPORTED_AS[p.id];
  if (e) return { outcome: e.outcome, reason: e.reason ?? '' };
  if (p.outcome !== 'InvalidJson') return { outcome: p.outcome, reason: '' };
  const cause = INVALID_JSON_CAUSE[p.case];
  if (!cause) throw new Error(`live-python: no InvalidJson cause known for case ${p.case} (${p.id})`);
  return { outcome: p.outcome, reason: cause };
}

/** `tool|outcome|reason` → count, the metric labels each proposal must be counted under. */
export function expectedTally(run: LiveRun): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of liveProposals(run)) {
    const { outcome, reason } = exportedOutcome(p);
    const key = `${countedTool(outcome, p.name)}|${outcome}|${reason}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}
