/**
 * report.json: per model (and variant), the metrics overall and per tag, each case with its
 * observations, and the gates. Built from the suite (expectations) and the selected records; a
 * case × repeat without a record is a failure (coverage loss). Gates apply to the core variant; the
 * compatibility variant (tools.compatibility.json) is reported, not gated.
 */
import type { BfclReport } from './bfcl/score.js';
import { evaluate, missing, type EvalContext, type Evaluated, type Observation } from './evaluate.js';
import { checkGates, type GateResult, type Gates } from './gates.js';
import { modelKey, type ResultRecord, type RunRecord } from './records.js';
import { caseStability, computeMetrics, type CaseEvals, type Metrics, type Rate } from './score.js';
import { toolsFor, type Suite, type Variant } from './suite.js';
import type { JudgeAsk, JudgeLookupResult } from './evaluate.js';
import type { JudgeReport, ModelJudge } from './judge-report.js';
import type { EvalCase } from './types.js';
import type { ArgMatch } from './args.js';
import type { ArgMatchUsage } from './arg-match-run.js';

export const REPORT_VERSION = 1;

export interface ObservationReport {
  repeat: number;
  status: Evaluated['status'];
  errorCode?: string;
  decision: string;
  strictPass: boolean;
  exactMatch: boolean | null;
  problems: string[];
  latencyMs: number;
  tokens: number;
  /** The judge's part (cases with a judge): how it was settled, the verdict fields and reasoning. */
  judge?: { status: string; pass: boolean | null; fields: Record<string, boolean | null>; reasoning?: string };
  /** How each `judge` / `similar` argument of the first answer was settled (args.ts ArgMatch, with its tool). */
  argumentMatches?: (ArgMatch & { tool: string })[];
}

export interface CaseReport {
  id: string;
  tags: string[];
  kind: EvalCase['expected']['kind'];
  expected: string;
  traceId?: string;
  planned: number;
  passes: number;
  /** Every repeat passed. */
  pass: boolean;
  stability: Rate;
  observations: ObservationReport[];
}

export interface ModelReport {
  key: string;
  label: string;
  provider: string;
  model: string;
  variant: Variant;
  runId: string;
  repeats: number;
  overall: Metrics;
  byTag: Record<string, Metrics>;
  cases: CaseReport[];
  gates: GateResult[];
  passed: boolean;
  /** Judge-based rates (with κ and n) and judge gates, when the suite has judged cases. */
  judge?: ModelJudge;
  /** Counts of the `judge` / `similar` argument checks over this model's observations. */
  argumentMatches?: ArgMatchCounts;
}

/** Per mode: checks made, settled by soft equality, answered, matched among those, pending, invalid. */
export type ArgMatchCounts = Partial<
  Record<
    'judge' | 'similar',
    { checks: number; equal: number; asked: number; matched: number; pending: number; invalid: number }
  >
>;

/** The argument checks' lookup (arg-match-run.ts) and, once answered, what they cost. */
export interface ReportArgMatch {
  lookup: NonNullable<EvalContext['argMatch']>;
  usage?: ArgMatchUsage;
}

function argCounts(evals: readonly Evaluated[]): ArgMatchCounts | undefined {
  const out: ArgMatchCounts = {};
  for (const m of evals.flatMap((e) => e.argMatches ?? [])) {
    const c = (out[m.mode] ??= { checks: 0, equal: 0, asked: 0, matched: 0, pending: 0, invalid: 0 });
    c.checks++;
    c[m.status]++;
    if (m.status === 'asked' && m.match) c.matched++;
  }
  return Object.keys(out).length ? out : undefined;
}

/** Inputs the judge adds to a report (judge-report.ts). */
export interface ReportJudge {
  lookup?: (q: JudgeAsk) => JudgeLookupResult;
  finish: (models: ModelReport[], items: Map<string, CaseEvals[]>) => JudgeReport;
}

export interface Report {
  toolwatchEvalReport: number;
  generatedAt: string;
  suite: {
    name: string;
    datasetVersion: string;
    cases: number;
    skipped: { id: string; reason: string; traceId?: string }[];
  };
  gates: Gates;
  models: ModelReport[];
  /** Records whose case is no longer in the suite (ignored). */
  unknownCases: string[];
  passed: boolean;
  /** `eval bfcl` / `score --bfcl` only: BFCL's own scores beside the toolwatch report. */
  bfcl?: BfclReport;
  /** The judge's manifest, calibration and own tokens and cost (apart from the candidates'). */
  judge?: JudgeReport;
  /** The `judge` / `similar` argument checks' spend (judge and embeddings tokens, apart from the candidates'). */
  argumentMatch?: ArgMatchUsage;
  /** Set when the cases are replayed production failures (`--replay FILE`): the models are the `replay` variant. */
  replay?: { file: string; cases: number };
}

function observationOf(r: ResultRecord): Observation {
  return {
    repeat: r.repeat,
    status: r.status,
    ...(r.error ? { error: r.error } : {}),
    turns: r.turns,
    latencyMs: r.latencyMs,
    usage: r.usage ?? { inputTokens: 0, outputTokens: 0 },
    ...(r.endState !== undefined ? { endState: r.endState } : {}),
  };
}

function caseReport(c: EvalCase, evals: Evaluated[]): CaseReport {
  const passes = evals.filter((e) => e.strictPass).length;
  const { outcomes: _outcomes, ...stability } = caseStability(evals);
  return {
    id: c.id,
    tags: c.tags,
    kind: c.expected.kind,
    expected: evals[0]?.expectedLabel ?? '',
    ...(c.traceId ? { traceId: c.traceId } : {}),
    planned: evals.length,
    passes,
    pass: passes === evals.length && evals.length > 0,
    stability,
    observations: evals.map((e) => ({
      repeat: e.repeat,
      status: e.status,
      ...(e.errorCode ? { errorCode: e.errorCode } : {}),
      decision: e.decisionLabel,
      strictPass: e.strictPass,
      exactMatch: e.exactMatch,
      problems: e.problems,
      latencyMs: e.latencyMs,
      tokens: e.inputTokens + e.outputTokens,
      ...(e.judge
        ? {
            judge: {
              status: e.judge.status,
              pass: e.judge.pass,
              fields: e.judge.fields,
              ...(e.judge.reasoning ? { reasoning: e.judge.reasoning } : {}),
            },
          }
        : {}),
      ...(e.argMatches ? { argumentMatches: e.argMatches } : {}),
    })),
  };
}

export function buildReport(
  suite: Suite,
  results: readonly ResultRecord[],
  runs: readonly RunRecord[],
  now = Date.now(),
  judge?: ReportJudge,
  argMatch?: ReportArgMatch,
): Report {
  const ids = new Set(suite.cases.map((c) => c.id));
  const unknown = new Set<string>();
  const groups = new Map<string, ResultRecord[]>();
  for (const r of results) {
    if (!ids.has(r.caseId)) {
      unknown.add(r.caseId);
      continue;
    }
    const k = modelKey(r.label, r.variant);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(r);
  }
  const clarification = new RegExp(suite.settings.clarificationPattern, 'u');
  const models: ModelReport[] = [];
  const itemsByKey = new Map<string, CaseEvals[]>();
  for (const [key, recs] of groups) {
    const first = recs[0]!;
    const run = runs.find((x) => x.runId === first.runId);
    const repeats = run?.repeats ?? Math.max(suite.settings.repeats, ...recs.map((r) => r.repeat));
    const byCase = new Map<string, Map<number, ResultRecord>>();
    for (const r of recs) {
      let m = byCase.get(r.caseId);
      if (!m) byCase.set(r.caseId, (m = new Map()));
      m.set(r.repeat, r);
    }
    const items: CaseEvals[] = suite.cases.map((c) => {
      const ctx: EvalContext = {
        offered: toolsFor(suite, c, first.variant),
        schemas: suite.schemas,
        clarification,
        ...(judge?.lookup ? { judge: judge.lookup } : {}),
        ...(argMatch ? { argMatch: argMatch.lookup } : {}),
      };
      const evals: Evaluated[] = [];
      for (let rep = 1; rep <= repeats; rep++) {
        const r = byCase.get(c.id)?.get(rep);
        evals.push(r ? evaluate(c, observationOf(r), ctx) : missing(c, rep));
      }
      return { case: c, evals };
    });
    itemsByKey.set(key, items);
    const overall = computeMetrics(items, repeats);
    const tags = [...new Set(suite.cases.flatMap((c) => c.tags))].sort();
    // Own properties only: a tag named `__proto__` is a tag, not the object's prototype.
    const byTag: Record<string, Metrics> = Object.fromEntries(
      tags.map((t) => [
        t,
        computeMetrics(
          items.filter((i) => i.case.tags.includes(t)),
          repeats,
        ),
      ]),
    );
    const gates = first.variant === 'core' ? checkGates(overall, suite.settings.gates) : [];
    const counts = argCounts(items.flatMap((i) => i.evals));
    models.push({
      key,
      label: first.label,
      provider: first.provider,
      model: first.model,
      variant: first.variant,
      runId: first.runId,
      repeats,
      overall,
      byTag,
      cases: items.map((i) => caseReport(i.case, i.evals)),
      gates,
      passed: gates.every((g) => g.status !== 'failed'),
      ...(counts ? { argumentMatches: counts } : {}),
    });
  }
  models.sort((a, b) => a.key.localeCompare(b.key));
  const judged = judge?.finish(models, itemsByKey);
  return {
    toolwatchEvalReport: REPORT_VERSION,
    generatedAt: new Date(now).toISOString(),
    suite: {
      name: suite.name,
      datasetVersion: suite.settings.datasetVersion,
      cases: suite.cases.length,
      skipped: suite.skipped.map((s) => ({ id: s.id, reason: s.reason, ...(s.traceId ? { traceId: s.traceId } : {}) })),
    },
    gates: suite.settings.gates,
    models,
    unknownCases: [...unknown].sort(),
    passed: models.every((m) => m.passed),
    ...(judged ? { judge: judged } : {}),
    ...(argMatch?.usage ? { argumentMatch: argMatch.usage } : {}),
  };
}
