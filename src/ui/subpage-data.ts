/**
 * What the problem view (/problems/:id) and the tool view (/tools/:service/:tool) show, read through
 * the query modules the JSON API calls: problemDetail (as GET /api/problems/:id), toolDetail
 * (GET /api/tools/:service/:tool), problemsOverview (GET /api/problems), toolStats (GET /api/stats),
 * pageTrends (the call series) and changesList (GET /api/changes). No query logic of its own.
 */
import { changesList, toolDetail, type ToolVersionView } from '../queries/changes.js';
import { problemDetail, problemsOverview, type ListedProblemView, type ProblemDetail } from '../queries/problems.js';
import type { Reader } from '../queries/reader.js';
import type { Series } from '../queries/series.js';
import { toolStats, type ToolStats } from '../queries/stats.js';
import { pageTrends } from '../queries/trends.js';
import type { PageChange } from './data.js';

export interface ProblemPageData {
  nowMs: number;
  window: string;
  detail: ProblemDetail;
  /** The problem's tool's definition versions, when it has stored ones. */
  versions: ToolVersionView[];
}

export async function loadProblemPage(
  r: Reader,
  q: { id: string; service?: string; window: string },
): Promise<ProblemPageData | 'none' | 'ambiguous'> {
  const found = await problemDetail(r, q.id, q.service);
  if (found.kind !== 'one') return found.kind;
  const p = found.detail.problem;
  const tool = await toolDetail(r, p.service, p.tool);
  return { nowMs: r.now(), window: q.window, detail: found.detail, versions: tool?.versions ?? [] };
}

export interface ToolPageData {
  nowMs: number;
  window: string;
  windowMs: number;
  service: string;
  tool: string;
  versions: ToolVersionView[];
  problems: ListedProblemView[];
  stats: ToolStats | undefined;
  series: Series | undefined;
  buckets: number[];
  stepMs: number;
  /** The service's changes in the window, newest first. */
  changes: PageChange[];
}

/** undefined when the reader may not see the service, or the tool has no versions, calls or problems. */
export async function loadToolPage(
  r: Reader,
  q: { service: string; tool: string; window: string; windowMs: number },
): Promise<ToolPageData | undefined> {
  if (!r.view.sees(q.service)) return undefined;
  const nowMs = r.now();
  const sinceMs = nowMs - q.windowMs;
  const [detail, problems, stats, trends, changes] = await Promise.all([
    toolDetail(r, q.service, q.tool),
    problemsOverview(r, { sinceMs, service: q.service, tool: q.tool, limit: 100 }),
    toolStats(r, { windowMs: q.windowMs, nowMs, service: q.service }),
    pageTrends(r, { nowMs, windowMs: q.windowMs, service: q.service }),
    changesList(r, { service: q.service, sinceMs, limit: 200 }),
  ]);
  const mine = stats.tools.find((t) => t.tool === q.tool);
  const series = trends.tools.find((s) => s.key.tool === q.tool);
  if (!detail && !mine && problems.length === 0) return undefined;
  return {
    nowMs,
    window: q.window,
    windowMs: q.windowMs,
    service: q.service,
    tool: q.tool,
    versions: detail?.versions ?? [],
    problems,
    stats: mine,
    series,
    buckets: trends.buckets,
    stepMs: trends.stepMs,
    changes: changes.changes,
  };
}
