/**
 * The judge's part of `eval run`, `eval score` and `eval calibrate`: the self-preference check
 * against the candidates, the cache file, the labels, asking what is open, and the judge lines of
 * the summary. Kept here so cli.ts only wires it in.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildReport } from './report.js';
import { askOpen, createJudgeClient, JudgeCache, judgeSession, } from './judge-run.js';
import { reportJudge } from './judge-report.js';
import { readLabels } from './judge-score.js';
import { checkJudgeAgainst } from './judge-settings.js';
import { createRedactor } from '../redact/redact.js';
import { argMatchSession, createEmbedder, EmbeddingCache, resolveArgMatches, } from './arg-match-run.js';
import { askingModes } from './similarity-settings.js';
/** Bad judge setup: reported like a usage error (exit 2), nothing is run. */
export class JudgeSetupError extends Error {
}
export const LABELS_FILE = 'labels.jsonl';
export const DEFAULT_JUDGE_CACHE = 'judge-cache.jsonl';
/** Beside the judge cache: the `similar` match mode's embeddings. */
export const EMBEDDINGS_CACHE = 'embeddings-cache.jsonl';
export function judgedCases(suite) {
    return suite.cases.filter((c) => c.judge).length;
}
/** Refuses a judge that is one of the candidates; warns of one of the same family. */
export function checkCandidates(suite, candidates, warn) {
    const j = suite.settings.judge;
    if (!j)
        return [];
    const r = checkJudgeAgainst(j.model, candidates);
    if (r.refused.length)
        throw new JudgeSetupError(r.refused.join('\n'));
    for (const w of r.warnings)
        warn(`warning: ${w}\n`);
    return r.warnings;
}
export function loadLabels(suite) {
    const file = path.join(suite.dir, LABELS_FILE);
    if (!existsSync(file))
        return [];
    const r = readLabels(file);
    if (r.problems.length)
        throw new JudgeSetupError(r.problems.join('\n'));
    return r.labels;
}
function readCalibration(file) {
    try {
        const v = JSON.parse(readFileSync(file, 'utf8'));
        if (typeof v.judgeModel !== 'string' || !Array.isArray(v.fields))
            throw new Error('not a calibration file');
        return v;
    }
    catch (err) {
        throw new JudgeSetupError(`--calibration ${file}: ${err.message}`);
    }
}
/** The argument match modes that ask someone, over every case of the suite. */
export function suiteAskingModes(suite) {
    const out = new Set();
    for (const c of suite.cases)
        for (const m of askingModes(c.expected))
            out.add(m);
    return out;
}
const NO_USAGE = {
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
/**
 * Judges what is open — `kind: judge` / trajectory-judge cases and `judge` / `similar` argument
 * checks — and returns the report with the answers in it (or undefined: the suite asks nobody).
 */
export async function judgedReport(suite, results, runs, o) {
    const n = judgedCases(suite);
    const modes = suiteAskingModes(suite);
    if (n === 0 && modes.size === 0)
        return undefined;
    const s = suite.settings.judge;
    if (n && !s)
        o.warn(`note: ${n} case(s) ask a judge, but suite.yaml has no judge: their judge-based rates stay pending\n`);
    if (modes.has('judge') && !s)
        o.warn('note: some arguments match by judge, but suite.yaml has no judge: those checks stay pending\n');
    const needJudge = s && (n > 0 || modes.has('judge'));
    if (needJudge && s.apiKeyEnv && !o.env[s.apiKeyEnv])
        throw new JudgeSetupError(`judge: environment variable ${s.apiKeyEnv} is not set`);
    const sim = suite.settings.similarity;
    if (modes.has('similar') && sim?.apiKeyEnv && !o.env[sim.apiKeyEnv])
        throw new JudgeSetupError(`similarity: environment variable ${sim.apiKeyEnv} is not set`);
    const warnings = needJudge
        ? checkCandidates(suite, [...new Map(results.map((r) => [r.label, { label: r.label, model: r.model }])).values()], () => { })
        : [];
    const labels = n && s ? loadLabels(suite) : [];
    const calibration = o.calibrationFile ? readCalibration(o.calibrationFile) : undefined;
    const cacheFile = o.cacheFile ?? path.join(path.dirname(o.near), DEFAULT_JUDGE_CACHE);
    const cache = needJudge ? new JudgeCache(cacheFile) : undefined;
    const session = n && s && cache ? judgeSession(suite, s, cache) : undefined;
    const argSetup = {
        system: suite.system,
        redactor: createRedactor({ fields: suite.settings.redact.fields, patterns: suite.settings.redact.patterns }),
        ...(s && cache && modes.has('judge') ? { judge: { settings: s, cache } } : {}),
        ...(sim && modes.has('similar')
            ? { similar: { settings: sim, cache: new EmbeddingCache(path.join(path.dirname(cacheFile), EMBEDDINGS_CACHE)) } }
            : {}),
    };
    const args = modes.size ? argMatchSession(argSetup) : undefined;
    const judgeOf = (usage, withCalibration) => session && s
        ? reportJudge({
            settings: s,
            labels,
            ...(withCalibration && calibration ? { calibration } : {}),
            usage,
            warnings,
            lookup: session.lookup,
        })
        : undefined;
    buildReport(suite, results, runs, Date.now(), judgeOf(NO_USAGE, false), args ? { lookup: args.lookup } : undefined);
    let client;
    const clientOf = (j) => (client ??= o.client ?? createJudgeClient(j, o.env, o.sleep));
    const usage = session && s
        ? session.open.size
            ? await askOpen(session, clientOf(s))
            : { ...NO_USAGE, questions: session.seen.size, cached: session.seen.size }
        : NO_USAGE;
    for (const m of usage.errorMessages)
        o.warn(`judge: ${m}\n`);
    const argUsage = args
        ? await resolveArgMatches(args, {
            ...argSetup,
            ...(argSetup.judge && args.openQuestions.size ? { client: clientOf(argSetup.judge.settings) } : {}),
            ...(argSetup.similar && args.openTexts.size
                ? { embedder: o.embedder ?? createEmbedder(argSetup.similar.settings, o.env) }
                : {}),
        })
        : undefined;
    for (const m of argUsage?.errorMessages ?? [])
        o.warn(`${m}\n`);
    return buildReport(suite, results, runs, Date.now(), judgeOf(usage, true), args ? { lookup: args.lookup, ...(argUsage ? { usage: argUsage } : {}) } : undefined);
}
const pct = (r) => r.value === null
    ? '—'
    : `${(r.value * 100).toFixed(1)}% (${r.numerator}/${r.denominator}, κ ${r.kappa === null ? '—' : r.kappa.toFixed(2)}, n ${r.labels}${r.status === 'uncalibrated' ? ', uncalibrated' : ''})`;
/** The summary lines of the judge / similar argument checks: per model how they were settled, then their spend. */
function argSummary(report) {
    const lines = [];
    for (const m of report.models) {
        const parts = ['judge', 'similar'].flatMap((mode) => {
            const c = m.argumentMatches?.[mode];
            return c
                ? [
                    `${mode} ${c.matched + c.equal}/${c.checks} matched (${c.equal} equal, ${c.asked} asked, ${c.pending} pending)`,
                ]
                : [];
        });
        if (parts.length)
            lines.push(`${m.key}: argument checks ${parts.join(', ')}`);
    }
    const u = report.argumentMatch;
    if (u?.judge)
        lines.push(`argument judge ${u.judge.model}: ${u.judge.asked} asked, ${u.judge.cached} cached; ${u.judge.totalTokens} tokens, cost ${u.judge.cost} — apart from the candidates'`);
    if (u?.similar)
        lines.push(`embeddings ${u.similar.model}: ${u.similar.embedded} embedded, ${u.similar.cached} cached; ${u.similar.inputTokens} tokens, cost ${u.similar.cost} — apart from the candidates'`);
    return lines;
}
export function judgeSummary(report) {
    const j = report.judge;
    if (!j)
        return argSummary(report);
    const lines = argSummary(report);
    for (const m of report.models) {
        const jm = m.judge?.metrics;
        if (!jm)
            continue;
        const parts = [];
        if (jm.decision)
            parts.push(`judge selection ${pct(jm.decision.toolSelection)}`, `judge pass ${pct(jm.decision.pass)}`);
        if (jm.trajectory)
            parts.push(`judge reached goal ${pct(jm.trajectory.reachedGoal)}`, `judge trajectory pass ${pct(jm.trajectory.pass)}`);
        if (jm.pending)
            parts.push(`${jm.pending} pending`);
        lines.push(`${m.key}: ${parts.join(', ')}`);
        for (const g of m.judge?.gates ?? [])
            if (g.status === 'failed')
                lines.push(`  judge gate ${g.gate} ≥ ${g.threshold} failed`);
    }
    const u = j.usage;
    lines.push(`judge ${j.model} (prompt ${j.promptVersion}): ${u.asked} asked, ${u.cached} cached, ${u.errors} not answered; ` +
        `${u.totalTokens} tokens (${u.inputTokens} in, ${u.outputTokens} out), cost ${u.cost} — apart from the candidates'`);
    return lines;
}
//# sourceMappingURL=judge-cli.js.map