/**
 * --judge: what enabling the judge at its defaults costs ingest. `judge.feedback_rate: 1` (the
 * default) makes every trace a candidate whose steps are redacted and written at ingest (see "What
 * candidates cost" in docs/judge.md), so a second toolwatch — every setting at its default but
 * `judge.enabled: true`, a model and the local stand-in (bench/judge-stand-in.js) as its endpoint —
 * goes through the main run's own steps: fill the dedupe memory at max, max with it full, then the
 * main run's fixed rate (½ its max). CPU per batch at that rate (no batch shed there, so the figure is
 * not skewed by 503s on a busy machine) and peak RSS are compared with the main (judge off) run's.
 * Exported: runJudgeCost(h, opts) → the figures; judgeCostRows(r, off, verdict) → the table rows.
 */
import { startJudgeStandIn } from './judge-stand-in.js';

export const TARGET_JUDGE_FACTOR = 1.3;

/**
 * @param h helpers from run.js: startToolwatch(opts), stopChild, load, checkLoad(name, r), metrics(port),
 *   sumMetric, readRss(pid), log
 * @param {{ fillRequests: number, rate: number, rateDuration: number }} opts batches of the fill (0: no fill,
 *   as --no-fill); the main run's fixed rate (½ its max, requests/s) and its measured seconds
 */
export async function runJudgeCost(h, { fillRequests, rate, rateDuration }) {
  const standIn = await startJudgeStandIn({ latencyMs: 50 });
  try {
    const tw = await h.startToolwatch({
      name: 'judge-on',
      config: `judge:\n  enabled: true\n  model: bench-stand-in\n  base_url: ${standIn.url}\n`,
    });
    h.log(`judge on at its defaults (feedback_rate 1: every trace a candidate), pid ${tw.child.pid}`);
    let fill;
    if (fillRequests > 0) {
      fill = await h.load(tw, 'max', { runId: 30, warmup: 0, duration: 900, requests: fillRequests });
      h.checkLoad('judge on, filling its dedupe memory', fill);
    }
    const max = await h.load(tw, 'max', { runId: 31 });
    h.checkLoad('judge on, max', max);
    // The comparison's phase: nothing shed at a fixed rate below the max, so CPU per batch is clean.
    const fixed = await h.load(tw, 'rate', { runId: 32, rate, warmup: 1, duration: rateDuration });
    h.checkLoad('judge on, fixed rate', fixed);
    const text = await h.metrics(tw.port);
    const rss = h.readRss(tw.child.pid);
    await h.stopChild(tw.child, 15_000);
    const sent = (fill?.total.calls ?? 0) + max.total.calls + fixed.total.calls;
    const result = {
      fill,
      max,
      fixed,
      rss,
      sent,
      counted: h.sumMetric(text, 'toolwatch_tool_calls_total').total,
      duplicates: h.sumMetric(text, 'toolwatch_duplicate_spans_total').total,
    };
    h.log(
      `  judge on: max ${max.spansPerS.toLocaleString('en-US')} spans/s; at the fixed rate ${fixed.server ? cpuPerBatch(fixed).toFixed(2) : '-'} CPU ms per batch; peak RSS ${rss?.hwmMb.toFixed(0)} MB`,
    );
    return result;
  } finally {
    await standIn.close();
  }
}

export function judgeCostProblems(r) {
  return r.counted !== r.sent || r.duplicates !== 0
    ? [`judge on: counted ${r.counted} calls of ${r.sent} sent, ${r.duplicates} duplicate spans`]
    : [];
}

/**
 * CPU per batch answered 200: a batch shed with 503 (--allow-shed on a busy machine) costs next to
 * nothing, so per request the phase that shed more would look cheaper.
 */
export function cpuPerBatch(r) {
  return r.server.cpuMs / Math.max(1, r.total.ok);
}

/**
 * Its rows of the targets table, against the main (judge off) run: CPU per batch at the same fixed
 * rate (`off.fixed`, its ½-max phase) and peak RSS (`off.rss`).
 */
export function judgeCostRows(r, off, verdict) {
  const rows = [];
  if (r.fixed.server && off.fixed.server) {
    const on = cpuPerBatch(r.fixed);
    const base = cpuPerBatch(off.fixed);
    const f = on / base;
    rows.push([
      `judge enabled at its defaults: CPU ms per batch at ${Math.round(r.fixed.spansPerS).toLocaleString('en-US')} spans/s ÷ judge off`,
      `${f.toFixed(2)}× (${on.toFixed(2)} / ${base.toFixed(2)})`,
      `≤ ${TARGET_JUDGE_FACTOR}×`,
      verdict(f <= TARGET_JUDGE_FACTOR),
    ]);
  }
  if (r.rss && off.rss) {
    const f = r.rss.hwmMb / off.rss.hwmMb;
    rows.push([
      'judge enabled at its defaults: peak RSS ÷ judge off',
      `${f.toFixed(2)}× (${r.rss.hwmMb.toFixed(0)} / ${off.rss.hwmMb.toFixed(0)} MB)`,
      `≤ ${TARGET_JUDGE_FACTOR}×`,
      verdict(f <= TARGET_JUDGE_FACTOR),
    ]);
  }
  return rows;
}
