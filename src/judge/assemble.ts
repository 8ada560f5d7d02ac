/** Stored steps → a Trajectory: order, task, final answer, tools, tokens, latency. Pure. */
import type { ToolDef } from '../model.js';
import type { Step, Trajectory, TrajectoryStatus } from './types.js';

export interface TrajectoryHeader {
  traceId: string;
  service: string;
  firstMs: number;
  endMs: number;
  hasFailure: boolean;
  status: TrajectoryStatus;
  probability: number | null;
  attempts: number;
  lastError?: string;
}

/** Steps in start order, then arrival order, then end, then span id: the same trace always reads the same. */
export function orderSteps(steps: readonly Step[]): Step[] {
  return [...steps].sort(
    (a, b) =>
      a.startMs - b.startMs ||
      (a.seq ?? 0) - (b.seq ?? 0) ||
      a.endMs - b.endMs ||
      (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0),
  );
}

export function assemble(h: TrajectoryHeader, stored: readonly Step[]): Trajectory {
  const steps = orderSteps(stored);
  const tools = new Map<string, ToolDef>();
  let task: string | undefined;
  let finalAnswer: string | undefined;
  let model = '';
  let inputTokens = 0;
  let outputTokens = 0;
  for (const s of steps) {
    if (s.kind !== 'model') continue;
    if (task === undefined && s.userMessage) task = s.userMessage;
    if (s.outputText) finalAnswer = s.outputText;
    if (!model && s.model) model = s.model;
    inputTokens += s.inputTokens ?? 0;
    outputTokens += s.outputTokens ?? 0;
    for (const t of s.offered ?? []) if (!tools.has(t.name)) tools.set(t.name, t);
  }
  return {
    traceId: h.traceId,
    service: h.service,
    model,
    ...(task !== undefined ? { task } : {}),
    ...(finalAnswer !== undefined ? { finalAnswer } : {}),
    tools: [...tools.values()],
    steps,
    inputTokens,
    outputTokens,
    latencyMs: Math.max(0, h.endMs - h.firstMs),
    startedMs: h.firstMs,
    hasFailure: h.hasFailure,
    status: h.status,
    probability: h.probability,
    attempts: h.attempts,
    ...(h.lastError ? { lastError: h.lastError } : {}),
  };
}
