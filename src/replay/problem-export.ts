/**
 * A problem's examples as draft eval cases (`toolwatch eval export --problem ID`, `--problems open`):
 * each kept example (the first, the latest, one per model) names a trace and the span of the failure;
 * the case is built from what the store kept of that answer, as the failure export builds it
 * (build.ts): the answer inside a stored trajectory, else its failure record with the request context
 * kept beside it; a failed execution (no failure record: its call passed the check) from the stored
 * trajectory as a whole. Each case is tagged `problem:<id>` and carries the problem's id, outcome and
 * signature in `metadata.problem`; redacted (fail closed) and merged by content like every export.
 */
import type { JudgeStore } from '../judge/store.js';
import type { OutcomeName } from '../model.js';
import { problemById, problemExamples, type ProblemRow, type ProblemStatus } from '../problems/store.js';
import type { Redactor } from '../redact/redact.js';
import { fromFailureRow } from '../store/rows.js';
import type { Row, Sql } from '../store/sql.js';
import type { ServiceView } from '../util/service-view.js';
import { failureCases, stepCases, trajectoryCase, type Draft, type Skip, type TraceFacts } from './build.js';
import { loadFailureContexts } from './context.js';
import { contentId, RedactionError, redactedOrRefused, type ExportedCase, type ExportSummary } from './export.js';

export type ProblemSelection = { ids: readonly string[] } | { status: ProblemStatus };

export interface ProblemExportSources {
  sql: Sql;
  judge: JudgeStore;
  redactor: () => Redactor;
  view?: ServiceView;
}

export interface ProblemCase extends ExportedCase {
  metadata: ExportedCase['metadata'] & { problem: { id: string; outcome: string; signature: string } };
}

const STRUCTURAL = new Set(['InvalidJson', 'UnknownName', 'SchemaMismatch']);

async function selectProblems(src: ProblemExportSources, sel: ProblemSelection): Promise<ProblemRow[]> {
  const rows =
    'ids' in sel
      ? (await Promise.all(sel.ids.map((id) => problemById(src.sql, id)))).flat()
      : (
          await src.sql
            .all<Row>('SELECT id, service FROM problems WHERE status = ? ORDER BY occurrences DESC, id', [sel.status])
            .then((rs) => Promise.all(rs.map((r) => problemById(src.sql, String(r.id), String(r.service)))))
        ).flat();
  return rows.filter((p) => !src.view || src.view.sees(p.service));
}

export async function problemCases(
  src: ProblemExportSources,
  sel: ProblemSelection,
  limit: number,
): Promise<{ cases: ProblemCase[]; summary: ExportSummary & { problems: number } }> {
  let redactor: Redactor;
  try {
    redactor = src.redactor();
  } catch (err) {
    throw new RedactionError(err);
  }
  const problems = await selectProblems(src, sel);
  const summary = {
    problems: problems.length,
    traces: 0,
    cases: 0,
    duplicates: 0,
    skipped: [] as Skip[],
    truncated: false,
  };
  const cases: ProblemCase[] = [];
  const byId = new Map<string, ProblemCase>();
  for (const p of problems) {
    const seen = new Set<string>();
    for (const ex of await problemExamples(src.sql, p.service, p.id)) {
      const traceId = String(ex.trace_id);
      const spanId = String(ex.span_id);
      if (seen.has(`${traceId}\u0000${spanId}`)) continue;
      seen.add(`${traceId}\u0000${spanId}`);
      summary.traces++;
      for (const d of await draftsFor(src, p, traceId, spanId, String(ex.model), Number(ex.time_ms))) {
        if ('reason' in d) {
          summary.skipped.push(d);
          continue;
        }
        const clean = redactedOrRefused(d, redactor);
        const id = contentId(clean);
        if (byId.has(id)) {
          summary.duplicates++;
          continue;
        }
        if (cases.length >= limit) {
          summary.truncated = true;
          break;
        }
        const c: ProblemCase = {
          id,
          messages: clean.messages,
          ...(clean.tools ? { tools: clean.tools } : {}),
          expected: null,
          review: true,
          trace_id: traceId,
          observed: clean.observed,
          tags: [...clean.tags, `problem:${p.id}`],
          metadata: { ...clean.metadata, problem: { id: p.id, outcome: p.outcome, signature: p.canonical } },
        };
        byId.set(id, c);
        cases.push(c);
      }
    }
  }
  summary.cases = cases.length;
  return { cases, summary };
}

/** The drafts of one example: its answer in the stored trajectory, else its failure record. */
async function draftsFor(
  src: ProblemExportSources,
  p: ProblemRow,
  traceId: string,
  spanId: string,
  model: string,
  timeMs: number,
): Promise<(Draft | Skip)[]> {
  const facts: TraceFacts = { service: p.service, ...(model ? { model } : {}), timeMs };
  const stored = await src.judge.trajectories.trajectory(traceId);
  const t = stored && (!src.view || src.view.sees(stored.service)) && stored.steps.length ? stored : undefined;
  if (!STRUCTURAL.has(p.outcome)) {
    // A failed execution's call passed its check: the trajectory shows what the tool answered and what came after.
    return [t ? trajectoryCase(t, [], facts) : { traceId, reason: 'nothing_stored' }];
  }
  const records = (
    await src.sql.all<Row>('SELECT * FROM failures WHERE trace_id = ? AND span_id = ? AND service = ? ORDER BY id', [
      traceId,
      spanId,
      p.service,
    ])
  ).map(fromFailureRow);
  const outcome = p.outcome as OutcomeName;
  if (t) {
    const built = stepCases(t, records, new Set([outcome]), facts);
    if (!Array.isArray(built) || built.length) return Array.isArray(built) ? built : [built];
  }
  if (records.length === 0) return [{ traceId, reason: 'nothing_stored' }];
  const contexts = await loadFailureContexts(src.sql, [{ traceId, spanId }]);
  return failureCases(traceId, records, contexts, facts);
}
