/**
 * One evaluation round: every rule reads the minute aggregates, the pure kinds turn them into
 * observations, the pure state machine turns those into transitions, and the new states plus the
 * messages they produce are committed in one transaction (the outbox is written before anything
 * is sent). States are read from the database each round, so whichever replica holds the lock
 * next carries on exactly where the last one stopped.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { FailureQuery, StoredFailure } from '../store/store.js';
import { parseDuration } from '../util/duration.js';
import type { AlertStore, EvaluationCommit } from './alert-store.js';
import type { AlertRuleConfig } from './config.js';
import { step, type AlertInstance } from './engine.js';
import type { AlertMessage } from './message.js';
import { currentWindow, groupKey, type AlertDetails, type Observation, type RuleIO, type RuleKind } from './rules.js';
import { loadCallWindows } from './rules.js';

export interface CompiledRule {
  config: AlertRuleConfig;
  kind: RuleKind;
  /** The kind's keys with their defaults applied. */
  params: Record<string, unknown>;
  /** Notifier names this rule sends to. */
  notifiers: string[];
}

export interface EvaluatorDeps {
  rules: CompiledRule[];
  io: RuleIO;
  /** For the example failure in a firing message; optional. */
  failures?: (q: FailureQuery) => Promise<StoredFailure[]>;
  alertStore: AlertStore;
  publicUrl?: string;
  log: Logger;
  /** Called with the number of firing instances per rule after each round. */
  onFiring?: (firing: Map<string, number>) => void;
}

export interface RoundResult {
  sent: { rule: string; labels: Record<string, string>; status: 'firing' | 'resolved'; repeat: boolean }[];
  states: AlertInstance[];
  errors: { rule: string; error: string }[];
}

export async function evaluateRound(deps: EvaluatorDeps, now: number): Promise<RoundResult> {
  const previous = await deps.alertStore.states();
  const byRule = new Map<string, AlertInstance[]>();
  for (const s of previous) byRule.set(s.rule, [...(byRule.get(s.rule) ?? []), s]);
  const commit: EvaluationCommit = { upsert: [], remove: [], enqueue: [], nowMs: now };
  const result: RoundResult = { sent: [], states: [], errors: [] };
  const known = new Set(deps.rules.map((r) => r.config.name));
  // A rule removed from the config takes its states with it (as Prometheus drops them), silently.
  for (const s of previous) if (!known.has(s.rule)) commit.remove.push({ rule: s.rule, groupKey: s.groupKey });

  for (const rule of deps.rules) {
    const name = rule.config.name;
    const prior = byRule.get(name) ?? [];
    let observations: Observation[];
    try {
      const data = rule.kind.load ? await rule.kind.load(rule.params, deps.io, now) : await loadCallWindows(rule.params, deps.io, now);
      observations = rule.kind.evaluate(rule.params, data, now);
    } catch (err) {
      // One broken rule must not stop the others; its states stay as they were.
      deps.log.error({ err, rule: name }, 'alert rule failed to evaluate');
      result.errors.push({ rule: name, error: (err as Error).message });
      result.states.push(...prior);
      continue;
    }
    const obsByKey = new Map(observations.map((o) => [groupKey(o.labels), o]));
    const priorByKey = new Map(prior.map((s) => [s.groupKey, s]));
    const keys = [...new Set([...obsByKey.keys(), ...priorByKey.keys()])].sort();
    const timing = { forMs: rule.config.forMs, keepFiringForMs: rule.config.keepFiringForMs, repeatIntervalMs: rule.config.repeatIntervalMs };
    for (const key of keys) {
      const prev = priorByKey.get(key) ?? null;
      const t = step(prev, obsByKey.get(key) ?? null, timing, now, { rule: name, groupKey: key });
      if (t.next) {
        commit.upsert.push(t.next);
        result.states.push(t.next);
      } else if (prev) commit.remove.push({ rule: name, groupKey: key });
      if (t.send && t.next) {
        const message = await buildMessage(deps, rule, t.next, t.send, t.repeat, now);
        for (const notifier of rule.notifiers) commit.enqueue.push({ notifier, message });
        result.sent.push({ rule: name, labels: t.next.labels, status: t.send, repeat: t.repeat });
      }
    }
  }
  await deps.alertStore.commit(commit);
  const firing = new Map(deps.rules.map((r) => [r.config.name, 0]));
  for (const s of result.states) if (s.state === 'firing') firing.set(s.rule, (firing.get(s.rule) ?? 0) + 1);
  deps.onFiring?.(firing);
  return result;
}

async function buildMessage(deps: EvaluatorDeps, rule: CompiledRule, a: AlertInstance, status: 'firing' | 'resolved', repeat: boolean, now: number): Promise<AlertMessage> {
  const windowMs = parseDuration(String(rule.params.window ?? '5m')) ?? 300_000;
  const since = currentWindow(now, windowMs).sinceMs;
  const details: AlertDetails = { ...a.details };
  if (status === 'firing' && deps.failures && (details.failed ?? 0) > 0) {
    try {
      const [f] = await deps.failures({ ...(a.labels.service ? { service: a.labels.service } : {}), ...(a.labels.tool ? { tool: a.labels.tool } : {}), sinceMs: since, limit: 1 });
      if (f) {
        const e = f.errors[0];
        details.example = {
          tool: f.tool,
          name: f.name,
          outcome: f.outcome,
          path: e ? e.instancePath || '/' : '',
          message: e ? `${e.instancePath || '/'} ${e.message}` : f.message,
          traceId: f.traceId,
          time: new Date(f.timeMs).toISOString(),
        };
      }
    } catch (err) {
      deps.log.warn({ err, rule: rule.config.name }, 'could not read an example failure for an alert');
    }
  }
  const q = new URLSearchParams();
  if (a.labels.service) q.set('service', a.labels.service);
  if (a.labels.tool) q.set('tool', a.labels.tool);
  q.set('since', new Date(since).toISOString());
  return {
    status,
    repeat,
    rule: rule.config.name,
    kind: rule.config.kind,
    severity: rule.config.severity,
    labels: a.labels,
    groupKey: a.groupKey,
    fingerprint: createHash('sha256').update(`${a.rule}\u0000${a.groupKey}`).digest('hex').slice(0, 16),
    value: a.value,
    threshold: a.threshold,
    summary: a.summary,
    details,
    startsAt: a.firingSince ?? a.activeSince,
    endsAt: status === 'resolved' ? a.resolvedAt : null,
    link: `${deps.publicUrl ?? ''}/api/failures?${q.toString()}`,
  };
}
