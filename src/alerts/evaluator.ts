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
import { MINUTE_MS } from '../store/store.js';
import { formatDuration, parseDuration } from '../util/duration.js';
import type { AlertStore, EvaluationCommit } from './alert-store.js';
import type { Attributor } from './cause.js';
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
  /** Notifiers that want a firing alert sent again this often (Alertmanager), by name. */
  resendMs?: ReadonlyMap<string, number>;
  /** Names a firing alert's likely change (kinds with a `cause`); absent: alerts carry no attribution. */
  attribute?: Attributor;
}

export interface RoundResult {
  sent: { rule: string; labels: Record<string, string>; status: 'firing' | 'resolved'; repeat: boolean }[];
  states: AlertInstance[];
  errors: { rule: string; error: string }[];
  /** Messages queued only to re-send a firing alert (to notifiers with a resend interval). */
  resent: number;
}

export async function evaluateRound(deps: EvaluatorDeps, now: number): Promise<RoundResult> {
  const previous = await deps.alertStore.states();
  const byRule = new Map<string, AlertInstance[]>();
  for (const s of previous) byRule.set(s.rule, [...(byRule.get(s.rule) ?? []), s]);
  const commit: EvaluationCommit = { upsert: [], remove: [], enqueue: [], nowMs: now };
  const result: RoundResult = { sent: [], states: [], errors: [], resent: 0 };
  const known = new Set(deps.rules.map((r) => r.config.name));
  // A rule removed from the config takes its states with it (as Prometheus drops them), silently.
  for (const s of previous) if (!known.has(s.rule)) commit.remove.push({ rule: s.rule, groupKey: s.groupKey });

  for (const rule of deps.rules) {
    const name = rule.config.name;
    const prior = byRule.get(name) ?? [];
    let observations: Observation[];
    try {
      const data = rule.kind.load
        ? await rule.kind.load(rule.params, deps.io, now)
        : await loadCallWindows(rule.params, deps.io, now);
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
    const timing = {
      forMs: rule.config.forMs,
      keepFiringForMs: rule.config.keepFiringForMs,
      repeatIntervalMs: rule.config.repeatIntervalMs,
    };
    for (const key of keys) {
      const prev = priorByKey.get(key) ?? null;
      const t = step(prev, obsByKey.get(key) ?? null, timing, now, { rule: name, groupKey: key });
      const next = t.next;
      if (t.send && next) {
        const message = await buildMessage(deps, rule, next, t.send, t.repeat, now);
        for (const notifier of rule.notifiers) commit.enqueue.push({ notifier, message });
        if (t.send === 'firing')
          markResent(
            next,
            rule.notifiers.filter((n) => deps.resendMs?.has(n)),
            now,
          );
        result.sent.push({ rule: name, labels: next.labels, status: t.send, repeat: t.repeat });
      } else if (next?.state === 'firing') {
        const due = resendsDue(next, rule.notifiers, deps.resendMs, now);
        if (due.length) {
          const message = await buildMessage(deps, rule, next, 'firing', true, now, { example: false });
          // Keyed: while one re-send of this alert waits (the receiver is down), no second one piles up behind it.
          for (const notifier of due) commit.enqueue.push({ notifier, message, key: `resend:${message.fingerprint}` });
          markResent(next, due, now);
          result.resent += due.length;
        }
      }
      if (next) {
        commit.upsert.push(next);
        result.states.push(next);
      } else if (prev) commit.remove.push({ rule: name, groupKey: key });
    }
  }
  await deps.alertStore.commit(commit);
  const firing = new Map(deps.rules.map((r) => [r.config.name, 0]));
  for (const s of result.states) if (s.state === 'firing') firing.set(s.rule, (firing.get(s.rule) ?? 0) + 1);
  deps.onFiring?.(firing);
  return result;
}

/** The notifiers of a firing alert whose resend interval has passed since they were last sent it. */
export function resendsDue(
  a: AlertInstance,
  notifiers: readonly string[],
  resendMs: ReadonlyMap<string, number> | undefined,
  now: number,
): string[] {
  if (!resendMs || a.state !== 'firing') return [];
  return notifiers.filter((n) => {
    const every = resendMs.get(n);
    return every !== undefined && now - (a.resentAt?.[n] ?? Number.NEGATIVE_INFINITY) >= every;
  });
}

function markResent(a: AlertInstance, notifiers: readonly string[], now: number): void {
  if (notifiers.length === 0) return;
  a.resentAt = { ...a.resentAt };
  for (const n of notifiers) a.resentAt[n] = now;
}

async function buildMessage(
  deps: EvaluatorDeps,
  rule: CompiledRule,
  a: AlertInstance,
  status: 'firing' | 'resolved',
  repeat: boolean,
  now: number,
  opts: { example: boolean } = { example: true },
): Promise<AlertMessage> {
  const windowMs = parseDuration(String(rule.params.window ?? '5m')) ?? 300_000;
  const since = currentWindow(now, windowMs).sinceMs;
  const details: AlertDetails = { ...a.details };
  if (status === 'firing' && opts.example && deps.failures && !details.example && (details.failed ?? 0) > 0) {
    try {
      const [f] = await deps.failures({
        ...(a.labels.service ? { service: a.labels.service } : {}),
        ...(a.labels.tool ? { tool: a.labels.tool } : {}),
        sinceMs: since,
        limit: 1,
      });
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
  if (status === 'firing' && opts.example) await attributeAlert(deps, rule, a, now);
  const q = new URLSearchParams();
  if (a.labels.service) q.set('service', a.labels.service);
  if (a.labels.tool) q.set('tool', a.labels.tool);
  q.set('since', new Date(since).toISOString());
  const page = new URLSearchParams();
  if (a.labels.service) page.set('service', a.labels.service);
  page.set('window', formatDuration(Math.max(windowMs, MINUTE_MS)));
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
    link: details.linkPath
      ? `${deps.publicUrl ?? ''}${details.linkPath}`
      : `${deps.publicUrl ?? ''}/api/failures?${q.toString()}`,
    // A kind that links to a page of its own (a problem's) is shown there, in Alertmanager too (generatorURL).
    page: details.linkPath
      ? `${deps.publicUrl ?? ''}${details.linkPath}`
      : `${deps.publicUrl ?? ''}/?${page.toString()}`,
    ...(status === 'firing' && a.attribution ? { attribution: a.attribution } : {}),
  };
}

/**
 * The alert's likely change, kept on its state: looked for before the instant its condition first
 * held (activeSince — a change after that cannot have started it), recomputed with each firing
 * message (a repeat has seen more calls after the change). A failure to read keeps the last one.
 */
async function attributeAlert(deps: EvaluatorDeps, rule: CompiledRule, a: AlertInstance, now: number): Promise<void> {
  const subject = deps.attribute ? rule.kind.cause?.(rule.params, a.labels, a.details) : undefined;
  if (!subject || !deps.attribute) return;
  try {
    a.attribution = await deps.attribute(subject, a.activeSince, now);
  } catch (err) {
    deps.log.warn({ err, rule: rule.config.name }, 'could not attribute an alert to a change');
  }
}
