/**
 * The judge's part of `eval run`, `eval score` and `eval calibrate`: the self-preference check
 * against the candidates, the cache file, the labels, asking what is open, and the judge lines of
 * the summary. Kept here so cli.ts only wires it in.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ResultRecord, RunRecord } from './records.js';
import { buildReport, type Report, type ReportJudge } from './report.js';
import {
  askOpen,
  createJudgeClient,
  type EvalJudgeClient,
  JudgeCache,
  type JudgeUsage,
  judgeSession,
} from './judge-run.js';
import { reportJudge } from './judge-report.js';
import { type JudgeCalibration, type Label, readLabels, type JudgedRate } from './judge-score.js';
import { checkJudgeAgainst } from './judge-settings.js';
import type { Suite } from './suite.js';

/** Bad judge setup: reported like a usage error (exit 2), nothing is run. */
export class JudgeSetupError extends Error {}

export const LABELS_FILE = 'labels.jsonl';
export const DEFAULT_JUDGE_CACHE = 'judge-cache.jsonl';

export interface JudgeCliOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** --judge-cache, else judge-cache.jsonl next to `near` (the predictions file). */
  cacheFile?: string;
  near: string;
  /** --calibration FILE (eval calibrate --out). */
  calibrationFile?: string;
  warn: (s: string) => void;
  sleep?: (ms: number) => Promise<void>;
  /** Tests may hand in a client. */
  client?: EvalJudgeClient;
}

export function judgedCases(suite: Suite): number {
  return suite.cases.filter((c) => c.judge).length;
}

/** Refuses a judge that is one of the candidates; warns of one of the same family. */
export function checkCandidates(
  suite: Suite,
  candidates: readonly { label: string; model: string }[],
  warn: (s: string) => void,
): string[] {
  const j = suite.settings.judge;
  if (!j) return [];
  const r = checkJudgeAgainst(j.model, candidates);
  if (r.refused.length) throw new JudgeSetupError(r.refused.join('\n'));
  for (const w of r.warnings) warn(`warning: ${w}\n`);
  return r.warnings;
}

export function loadLabels(suite: Suite): Label[] {
  const file = path.join(suite.dir, LABELS_FILE);
  if (!existsSync(file)) return [];
  const r = readLabels(file);
  if (r.problems.length) throw new JudgeSetupError(r.problems.join('\n'));
  return r.labels;
}

function readCalibration(file: string): JudgeCalibration {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as JudgeCalibration;
    if (typeof v.judgeModel !== 'string' || !Array.isArray(v.fields)) throw new Error('not a calibration file');
    return v;
  } catch (err) {
    throw new JudgeSetupError(`--calibration ${file}: ${(err as Error).message}`);
  }
}

/** Judges what is open and returns the report with the judge in it (or undefined: the suite judges nothing). */
export async function judgedReport(
  suite: Suite,
  results: readonly ResultRecord[],
  runs: readonly RunRecord[],
  o: JudgeCliOptions,
): Promise<Report | undefined> {
  const n = judgedCases(suite);
  if (n === 0) return undefined;
  const s = suite.settings.judge;
  if (!s) {
    o.warn(`note: ${n} case(s) ask a judge, but suite.yaml has no judge: their judge-based rates stay pending\n`);
    return undefined;
  }
  if (s.apiKeyEnv && !o.env[s.apiKeyEnv])
    throw new JudgeSetupError(`judge: environment variable ${s.apiKeyEnv} is not set`);
  const warnings = checkCandidates(
    suite,
    [...new Map(results.map((r) => [r.label, { label: r.label, model: r.model }])).values()],
    () => {},
  );
  const labels = loadLabels(suite);
  const calibration = o.calibrationFile ? readCalibration(o.calibrationFile) : undefined;
  const cache = new JudgeCache(o.cacheFile ?? path.join(path.dirname(o.near), DEFAULT_JUDGE_CACHE));
  const session = judgeSession(suite, s, cache);
  const none: JudgeUsage = {
    questions: 0,
    cached: 0,
    asked: 0,
    invalid: 0,
    errors: 0,
    errorMessages: [],
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    cost: 0,
  };
  const collect: ReportJudge = reportJudge({ settings: s, labels, usage: none, warnings, lookup: session.lookup });
  buildReport(suite, results, runs, Date.now(), collect);
  const usage = session.open.size
    ? await askOpen(session, o.client ?? createJudgeClient(s, o.env, o.sleep))
    : { ...none, questions: session.seen.size, cached: session.seen.size };
  for (const m of usage.errorMessages) o.warn(`judge: ${m}\n`);
  return buildReport(
    suite,
    results,
    runs,
    Date.now(),
    reportJudge({
      settings: s,
      labels,
      ...(calibration ? { calibration } : {}),
      usage,
      warnings,
      lookup: session.lookup,
    }),
  );
}

const pct = (r: JudgedRate) =>
  r.value === null
    ? '—'
    : `${(r.value * 100).toFixed(1)}% (${r.numerator}/${r.denominator}, κ ${r.kappa === null ? '—' : r.kappa.toFixed(2)}, n ${r.labels}${r.status === 'uncalibrated' ? ', uncalibrated' : ''})`;

export function judgeSummary(report: Report): string[] {
  const j = report.judge;
  if (!j) return [];
  const lines: string[] = [];
  for (const m of report.models) {
    const jm = m.judge?.metrics;
    if (!jm) continue;
    const parts: string[] = [];
    if (jm.decision)
      parts.push(`judge selection ${pct(jm.decision.toolSelection)}`, `judge pass ${pct(jm.decision.pass)}`);
    if (jm.trajectory)
      parts.push(
        `judge reached goal ${pct(jm.trajectory.reachedGoal)}`,
        `judge trajectory pass ${pct(jm.trajectory.pass)}`,
      );
    if (jm.pending) parts.push(`${jm.pending} pending`);
    lines.push(`${m.key}: ${parts.join(', ')}`);
    for (const g of m.judge?.gates ?? [])
      if (g.status === 'failed') lines.push(`  judge gate ${g.gate} ≥ ${g.threshold} failed`);
  }
  const u = j.usage;
  lines.push(
    `judge ${j.model} (prompt ${j.promptVersion}): ${u.asked} asked, ${u.cached} cached, ${u.errors} not answered; ` +
      `${u.totalTokens} tokens (${u.inputTokens} in, ${u.outputTokens} out), cost ${u.cost} — apart from the candidates'`,
  );
  return lines;
}
