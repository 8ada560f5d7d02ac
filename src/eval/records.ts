/**
 * The predictions file: JSONL, append-only. A `run` line opens each run (its settings), then one
 * `result` line per case × repeat × model × variant as it completes. Reading accepts several files
 * and several runs per file; for each model and variant the latest run that has it is scored
 * (or the run named with --run-id).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import type { Variant } from './suite.js';
import type { CanonicalOutcome, ProviderErrorCode, Turn, Usage } from './types.js';

export interface RunRecord {
  type: 'run';
  runId: string;
  startedAt: string;
  suite: string;
  datasetVersion: string;
  variants: Variant[];
  models: { label: string; provider: string; model: string; baseUrl?: string; params?: Record<string, unknown> }[];
  repeats: number;
  temperature?: number;
  maxTokens?: number;
  cases: number;
  /** The suite's judge (one for every candidate), as configured for this run. */
  judge?: { provider: string; model: string; baseUrl: string; promptVersion: string; temperature: number };
}

export interface ResultRecord {
  type: 'result';
  runId: string;
  datasetVersion: string;
  suite: string;
  variant: Variant;
  provider: string;
  model: string;
  label: string;
  caseId: string;
  repeat: number;
  startedAt: string;
  status: 'ok' | 'provider_error';
  error?: { code: ProviderErrorCode; message: string; status?: number };
  /** The final answer's canonical outcome (per turn in `turns`). */
  outcome: CanonicalOutcome;
  turns: Turn[];
  latencyMs: number;
  usage: Usage;
  attempts: number;
  /** The fake tools' state at the end of the conversation (stateful suites). */
  endState?: unknown;
}

export type EvalRecord = RunRecord | ResultRecord;

export function appendRecord(file: string, r: EvalRecord): void {
  appendFileSync(file, `${JSON.stringify(r)}\n`);
}

export interface ReadRecords {
  runs: RunRecord[];
  results: ResultRecord[];
  problems: string[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function readRecords(files: readonly string[]): ReadRecords {
  const out: ReadRecords = { runs: [], results: [], problems: [] };
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      out.problems.push(`${file}: ${(err as Error).message}`);
      continue;
    }
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch (err) {
        // An interrupted run can leave a cut last line: that record is missing, not the file broken.
        if (i === lines.length - 1) return;
        out.problems.push(`${file}:${i + 1}: not valid JSON (${(err as Error).message})`);
        return;
      }
      if (isObj(v) && v.type === 'run' && typeof v.runId === 'string') out.runs.push(v as unknown as RunRecord);
      else if (
        isObj(v) &&
        v.type === 'result' &&
        typeof v.runId === 'string' &&
        typeof v.caseId === 'string' &&
        Array.isArray(v.turns)
      ) {
        out.results.push(v as unknown as ResultRecord);
      } else out.problems.push(`${file}:${i + 1}: not a toolwatch eval record (type run or result)`);
    });
  }
  return out;
}

export const modelKey = (label: string, variant: Variant) => (variant === 'core' ? label : `${label} [${variant}]`);

/**
 * The results to score: per model label and variant, those of the latest run (file order) that
 * has any — or of `runId` only. Within a run, a later record for the same case and repeat wins.
 */
export function selectResults(read: ReadRecords, runId?: string): ResultRecord[] {
  const pool = runId ? read.results.filter((r) => r.runId === runId) : read.results;
  const latestRun = new Map<string, string>();
  for (const r of pool) latestRun.set(modelKey(r.label, r.variant), r.runId);
  const chosen = new Map<string, ResultRecord>();
  for (const r of pool) {
    const mk = modelKey(r.label, r.variant);
    if (latestRun.get(mk) !== r.runId) continue;
    chosen.set(`${mk}\u0000${r.caseId}\u0000${r.repeat}`, r);
  }
  return [...chosen.values()];
}
