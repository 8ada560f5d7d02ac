/**
 * What the built-in page shows, read through the same query modules the JSON API calls (src/queries/):
 * toolStats (GET /api/stats), failuresPage (GET /api/failures), alertsSnapshot (GET /api/alerts),
 * judgeSummary (GET /api/judge), instrumentationReport (GET /api/instrumentation), pageTrends (the
 * call series), modelComparison (GET /api/stats?by=model), problemsOverview (as GET /api/problems)
 * and changesList (GET /api/changes). No query logic of its own.
 */
import { changesList } from '../queries/changes.js';
import { problemsOverview, type ListedProblemView } from '../queries/problems.js';
import { alertsSnapshot } from '../queries/alerts.js';
import { failuresPage } from '../queries/failures.js';
import { judgeSummary } from '../queries/judge.js';
import { instrumentationReport, type InstrumentationReport } from '../queries/instrumentation.js';
import type { Reader } from '../queries/reader.js';
import { finish, toolStats, type ToolStats } from '../queries/stats.js';
import { pageTrends, type Trends } from '../queries/trends.js';
import { modelComparison, type ModelComparison } from '../queries/models.js';
import { OUTCOMES, type OutcomeName } from '../model.js';
import type { StoredFailure } from '../store/store.js';

/** Failures listed on the page; the rest are one click away in /api/failures. */
export const PAGE_FAILURES = 50;
/** The judge runs hourly: its summary covers the same default window as GET /api/judge. */
export const JUDGE_WINDOW = '7d';
/** Problems listed on the page (new and regressed first); the rest are in /api/problems. */
export const PAGE_PROBLEMS = 20;
/** Change events marked on the trend charts. */
export const PAGE_CHANGES = 200;

export type PageChange = Awaited<ReturnType<typeof changesList>>['changes'][number];

export interface PageData {
  nowMs: number;
  /** The window as asked for ('24h') and where it starts (whole minutes, as in /api/stats). */
  window: string;
  sinceMs: number;
  /** The service filter, when one is set. */
  service?: string;
  /** Every service with calls in the window that the reader may see (for the filter). */
  services: string[];
  /** Per service and tool, worst error rate first. */
  tools: ToolStats[];
  /** All shown tools together. */
  totals: ToolStats;
  failures: StoredFailure[];
  /** Trace ids among the failures that have a stored trajectory. */
  trajectories: Set<string>;
  /** Undefined when the store keeps no alert state. */
  alerts: Awaited<ReturnType<typeof alertsSnapshot>> | undefined;
  /** Undefined unless the judge is enabled. */
  judge: Awaited<ReturnType<typeof judgeSummary>> | undefined;
  /** Instrumentation coverage of this process (service filter applied). */
  instrumentation: InstrumentationReport;
  /** Calls over the window: per service, tool and model, the outcome mix, model changes, drift. */
  trends: Trends;
  /** Models side by side (as GET /api/stats?by=model). */
  models: ModelComparison;
  /** Problems seen in the window, new and regressed first (as GET /api/problems). */
  problems: ListedProblemView[];
  /** Change events in the window, newest first (as GET /api/changes): the trend charts' markers. */
  changes: PageChange[];
}

const byConcern = (a: ToolStats, b: ToolStats): number =>
  (b.errorRate ?? -1) - (a.errorRate ?? -1) ||
  b.total - a.total ||
  a.service.localeCompare(b.service) ||
  a.tool.localeCompare(b.tool);

export async function loadPageData(
  src: Reader,
  q: { window: string; windowMs: number; service?: string },
): Promise<PageData> {
  const nowMs = src.now();
  const service = q.service || undefined;
  const judgeOn = src.judge?.config.enabled ? src.judge : undefined;
  // Not filtered by `service`, so the service list stays complete; the filter applies below (a handful of rows).
  const [stats, trends, alerts, judge, models, problems, changes] = await Promise.all([
    toolStats(src, { windowMs: q.windowMs, nowMs }),
    pageTrends(src, { nowMs, windowMs: q.windowMs, ...(service ? { service } : {}) }),
    src.alerting ? alertsSnapshot(src) : Promise.resolve(undefined),
    judgeOn
      ? judgeSummary(
          { ...src, judge: judgeOn },
          { window: JUDGE_WINDOW, nowMs, runs: 1, ...(service ? { service } : {}) },
        )
      : Promise.resolve(undefined),
    modelComparison(src, { windowMs: q.windowMs, nowMs, ...(service ? { service } : {}) }),
    problemsOverview(src, { sinceMs: nowMs - q.windowMs, limit: PAGE_PROBLEMS, ...(service ? { service } : {}) }),
    changesList(src, { sinceMs: nowMs - q.windowMs, limit: PAGE_CHANGES, ...(service ? { service } : {}) }),
  ]);
  const failures = (
    await failuresPage(src, { sinceMs: stats.sinceMs, limit: PAGE_FAILURES, ...(service ? { service } : {}) })
  ).items;
  // Failures are already of the reader's services; their trajectories are too.
  const trajectories = src.judge
    ? await src.judge.store.storedTraceIds(failures.map((f) => f.traceId))
    : new Set<string>();
  const tools = stats.tools.filter((t) => !service || t.service === service).sort(byConcern);
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, tools.reduce((n, t) => n + t.counts[o], 0)])) as Record<
    OutcomeName,
    number
  >;
  return {
    nowMs,
    window: q.window,
    sinceMs: stats.sinceMs,
    ...(service ? { service } : {}),
    services: [...new Set(stats.tools.map((t) => t.service))].sort(),
    tools,
    totals: finish({ service: service ?? '', tool: '', counts, total: 0, checked: 0, errorRate: null }),
    failures,
    trajectories,
    alerts,
    judge,
    instrumentation: instrumentationReport(src, service ? { service } : {}),
    trends,
    models,
    problems,
    changes: changes.changes,
  };
}
