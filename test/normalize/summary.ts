/** A compact, comparable projection of SpanFacts so table rows can state every field they expect. */
import type { CallSighting, SpanFacts, ToolArgs, ToolExecution } from '../../src/model.js';

export interface CallSummary {
  id?: string;
  name: string;
  kind: ToolArgs['kind'];
  raw?: string;
  result?: string;
}

export interface FactsSummary {
  dialect: string;
  role: SpanFacts['role'];
  model?: string;
  provider?: string;
  offered?: string[];
  proposals: CallSummary[];
  replays: CallSummary[];
  execution?: Omit<ToolExecution, 'args'> & { kind: ToolArgs['kind']; raw?: string };
  inputTokens?: number;
  outputTokens?: number;
  userMessage?: string;
  outputText?: string;
  error?: string;
}

function args(a: ToolArgs): { kind: ToolArgs['kind']; raw?: string } {
  return a.kind === 'none' ? { kind: 'none' } : { kind: a.kind, raw: a.raw };
}

function call(s: CallSighting, i: number): CallSummary {
  if (s.index !== i) throw new Error(`sighting index ${s.index} at position ${i}`);
  const out: CallSummary = { name: s.name, ...args(s.args) };
  if (s.callId !== undefined) out.id = s.callId;
  if (s.result !== undefined) out.result = s.result;
  return out;
}

export function summarize(f: SpanFacts): FactsSummary {
  const out: FactsSummary = {
    dialect: f.dialect,
    role: f.role,
    proposals: f.proposals.map(call),
    replays: f.replays.map(call),
  };
  if (f.model !== undefined) out.model = f.model;
  if (f.provider !== undefined) out.provider = f.provider;
  if (f.offered !== undefined) out.offered = f.offered.map((d) => d.name);
  if (f.execution !== undefined) {
    const { args: a, ...rest } = f.execution;
    out.execution = { ...rest, ...args(a) };
  }
  if (f.inputTokens !== undefined) out.inputTokens = f.inputTokens;
  if (f.outputTokens !== undefined) out.outputTokens = f.outputTokens;
  if (f.userMessage !== undefined) out.userMessage = f.userMessage;
  if (f.outputText !== undefined) out.outputText = f.outputText;
  if (f.error !== undefined) out.error = f.error;
  return out;
}

/** Shorthand for an expected call: string args unless said otherwise. */
export function c(
  id: string | undefined,
  name: string,
  raw: string | undefined,
  kind: ToolArgs['kind'] = 'string',
  result?: string,
): CallSummary {
  const out: CallSummary = { name, kind: raw === undefined ? 'none' : kind };
  if (raw !== undefined) out.raw = raw;
  if (id !== undefined) out.id = id;
  if (result !== undefined) out.result = result;
  return out;
}
