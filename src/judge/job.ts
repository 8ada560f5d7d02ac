/**
 * One judge run: complete idle candidates, then judge pending trajectories — oldest first, under
 * per-run caps on trajectories, tokens and estimated cost, with a concurrency limit — and record
 * each verdict with its prompt version, judge model and sampling probability. What a run does not
 * get to (caps, rate limits, an unreachable judge, a redaction failure) stays pending for the next
 * run; only a verdict the judge twice failed to give validly is recorded as a judge error.
 *
 * Runs are serialised twice: the scheduler skips a tick while the previous run goes on, and
 * `lock` (Store.runExclusive) lets one replica at a time run it.
 */
import { endSpan, type Span, startChild, type Tracer } from '../telemetry/tracing.js';
import type { JudgeAnswer, JudgeClient } from './client.js';
import { estimateTokens, JudgeTransportError } from './client.js';
import { buildMessages, redactTrajectory, type ChatMessage, type PromptTemplate } from './prompt.js';
import type { Redactor } from '../redact/redact.js';
import { inclusionProbability, weightOf, type SamplingPolicy } from './sampler.js';
import type { JudgeStore } from './store.js';
import type { Trajectory, VerdictRecord } from './types.js';

/** Output tokens reserved per request when checking the budget (a verdict is short). */
const OUTPUT_RESERVE = 600;

export interface JudgeMetricsPort {
  verdict(service: string, v: { reached_goal: boolean; unnecessary_calls: number; dangerous_calls: number }): void;
  error(reason: string): void;
  run(status: string): void;
  usage(inputTokens: number, outputTokens: number, cost: number): void;
}

export interface JudgeJobDeps {
  store: JudgeStore;
  client: JudgeClient;
  prompt: PromptTemplate;
  /** Built once per run; a config that cannot compile fails the run closed. */
  redactor: () => Redactor;
  lock: <T>(name: string, fn: () => Promise<T>) => Promise<{ ran: true; value: T } | { ran: false }>;
  policy: SamplingPolicy;
  idleMs: number;
  caps: { trajectories: number; tokens: number; cost: number };
  price: { inputPerMillion: number; outputPerMillion: number };
  concurrency: number;
  now: () => number;
  metrics?: JudgeMetricsPort;
  /** Called after each recorded verdict (Langfuse score write-back, for one); errors are logged, not fatal. */
  onVerdict?: (v: VerdictRecord) => void | Promise<void>;
  /** Which of these traces got negative user feedback, read when a trajectory completes (the feedback stratum). */
  negativeFeedback?: (traceIds: string[]) => Promise<Set<string>>;
  /** Runs after each run (refreshes the κ gauge). */
  afterRun?: () => Promise<void>;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** toolwatch's own tracing: a `judge run` span, a `judge request` child per request; undefined when off. */
  tracer?: Tracer;
}

export interface RunSummary {
  status: 'ok' | 'partial' | 'failed' | 'skipped';
  runId?: number;
  finalized?: { pending: number; dropped: number };
  judged: number;
  errors: number;
  leftPending: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  stopReason?: string;
}

export class JudgeJob {
  constructor(private readonly deps: JudgeJobDeps) {}

  /** What the client's first request would load, loaded now (JudgeClient.warm). */
  async warm(): Promise<void> {
    await this.deps.client.warm?.();
  }

  async run(): Promise<RunSummary> {
    const res = await this.deps.lock('judge', () => this.runLocked());
    if (res.ran) return res.value;
    this.deps.metrics?.run('skipped');
    return { status: 'skipped', judged: 0, errors: 0, leftPending: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
  }

  /**
   * Completes idle candidates now, between runs (services.ts runs this every 10 s): their steps
   * are dropped or queued within 10 s of `judge.idle`, not at the next hourly run. One replica
   * at a time; a run finalizing at the same moment is harmless (each row changes state once).
   */
  async complete(): Promise<{ pending: number; dropped: number } | undefined> {
    const res = await this.deps.lock('judge-complete', () => this.finalize());
    return res.ran ? res.value : undefined;
  }

  private finalize(): Promise<{ pending: number; dropped: number }> {
    const d = this.deps;
    return d.store.trajectories.finalize(
      d.now(),
      d.idleMs,
      (service, failed, negative) => inclusionProbability(d.policy, service, failed, negative),
      d.negativeFeedback,
    );
  }

  private costOf(input: number, output: number): number {
    return (input * this.deps.price.inputPerMillion + output * this.deps.price.outputPerMillion) / 1e6;
  }

  private async runLocked(): Promise<RunSummary> {
    const d = this.deps;
    const runSpan = d.tracer
      ? startChild(d.tracer, 'judge run', undefined, {
          'toolwatch.judge.model': d.client.model,
          'toolwatch.judge.prompt_version': d.prompt.version,
        })
      : undefined;
    const runId = await d.store.verdicts.startRun(d.now(), d.prompt.version, d.client.model).catch((err: unknown) => {
      if (runSpan) endSpan(runSpan, err);
      throw err;
    });
    const s: RunSummary = {
      status: 'ok',
      runId,
      judged: 0,
      errors: 0,
      leftPending: 0,
      inputTokens: 0,
      outputTokens: 0,
      cost: 0,
    };
    // Reserved for requests in flight plus spent by finished ones, so concurrent workers cannot overshoot together.
    const budget = { tokens: 0, cost: 0 };
    let stop: string | undefined;
    let deferred = 0;
    try {
      s.finalized = await this.finalize();
      const redactor = d.redactor();
      const queue = await d.store.trajectories.pendingIds(d.caps.trajectories);

      const judgeOne = async (traceId: string): Promise<void> => {
        const t = await d.store.trajectories.trajectory(traceId);
        if (t?.status !== 'pending') return;
        let messages: ChatMessage[];
        try {
          // Fail closed: nothing is sent unless every part went through the redactor.
          messages = buildMessages(d.prompt, redactTrajectory(t, redactor)).map((m) => ({
            ...m,
            content: redactor.text(m.content),
          }));
        } catch (err) {
          deferred++;
          d.metrics?.error('redaction');
          await d.store.trajectories.recordAttemptFailure(
            traceId,
            `redaction failed, nothing sent: ${(err as Error).message}`,
            d.now(),
          );
          return;
        }
        const estIn = estimateTokens(messages.map((m) => m.content).join('\n'));
        const estTokens = estIn + OUTPUT_RESERVE;
        const estCost = this.costOf(estIn, OUTPUT_RESERVE);
        if (estTokens > d.caps.tokens || estCost > d.caps.cost) {
          deferred++;
          await d.store.trajectories.recordAttemptFailure(
            traceId,
            `larger than one run's token or cost cap (~${estTokens} tokens)`,
            d.now(),
          );
          return;
        }
        if (budget.tokens + estTokens > d.caps.tokens) return void (stop ??= 'token_cap');
        if (budget.cost + estCost > d.caps.cost) return void (stop ??= 'cost_cap');
        budget.tokens += estTokens;
        budget.cost += estCost;
        let answer: JudgeAnswer;
        const reqSpan = runSpan ? requestSpan(d.tracer!, runSpan, t.traceId, t.service, estIn) : undefined;
        try {
          answer = await d.client.judge(messages);
        } catch (err) {
          if (reqSpan)
            endSpan(
              reqSpan.setAttribute(
                'toolwatch.judge.outcome',
                err instanceof JudgeTransportError ? err.kind : 'rejected',
              ),
              err,
            );
          budget.tokens -= estTokens;
          budget.cost -= estCost;
          deferred++;
          const kind = err instanceof JudgeTransportError ? err.kind : 'rejected';
          d.metrics?.error(kind);
          await d.store.trajectories.recordAttemptFailure(traceId, (err as Error).message, d.now());
          // Rate limited or unreachable after retries: the next item would fare no better.
          if (kind !== 'rejected') stop ??= kind;
          return;
        }
        const cost = this.costOf(answer.inputTokens, answer.outputTokens);
        if (reqSpan) {
          reqSpan.setAttributes({
            'toolwatch.judge.outcome': answer.verdict ? 'verdict' : 'invalid_verdict',
            'toolwatch.judge.input_tokens': answer.inputTokens,
            'toolwatch.judge.output_tokens': answer.outputTokens,
            'toolwatch.judge.cost': cost,
            ...(answer.verdict ? { 'toolwatch.judge.reached_goal': answer.verdict.reached_goal } : {}),
          });
          endSpan(reqSpan);
        }
        budget.tokens += answer.inputTokens + answer.outputTokens - estTokens;
        budget.cost += cost - estCost;
        s.inputTokens += answer.inputTokens;
        s.outputTokens += answer.outputTokens;
        s.cost += cost;
        d.metrics?.usage(answer.inputTokens, answer.outputTokens, cost);
        await this.record(
          t,
          runId,
          answer.verdict ? { verdict: answer.verdict } : { error: `invalid verdict: ${answer.invalid}` },
          answer,
          cost,
          s,
        );
      };

      const worker = async (): Promise<void> => {
        for (let id = queue.shift(); id !== undefined && stop === undefined; id = queue.shift()) await judgeOne(id);
      };
      await Promise.all(Array.from({ length: Math.max(1, d.concurrency) }, worker));
      s.leftPending = (await d.store.trajectories.countByStatus()).pending ?? 0;
      if (!stop && s.leftPending > deferred) stop = 'trajectory_cap';
      if (stop) s.stopReason = stop;
      s.status = stop || deferred > 0 ? 'partial' : 'ok';
    } catch (err) {
      s.status = 'failed';
      s.stopReason = `failed: ${(err as Error).message}`.slice(0, 500);
      d.log?.warn({ err }, 'judge run failed');
    } finally {
      await d.store.verdicts
        .finishRun({
          id: runId,
          finishedMs: d.now(),
          status: s.status,
          judged: s.judged,
          errors: s.errors,
          leftPending: s.leftPending,
          inputTokens: s.inputTokens,
          outputTokens: s.outputTokens,
          cost: s.cost,
          stopReason: s.stopReason ?? null,
        })
        .catch((err: unknown) => d.log?.warn({ err }, 'judge: could not record the run'));
      d.metrics?.run(s.status);
      await d.afterRun?.().catch((err: unknown) => d.log?.warn({ err }, 'judge: after-run hook failed'));
      if (runSpan) {
        runSpan.setAttributes({
          'toolwatch.judge.run_id': runId,
          'toolwatch.judge.status': s.status,
          'toolwatch.judge.judged': s.judged,
          'toolwatch.judge.errors': s.errors,
          'toolwatch.judge.left_pending': s.leftPending,
          'toolwatch.judge.input_tokens': s.inputTokens,
          'toolwatch.judge.output_tokens': s.outputTokens,
          'toolwatch.judge.cost': s.cost,
          ...(s.stopReason ? { 'toolwatch.judge.stop_reason': s.stopReason } : {}),
        });
        endSpan(runSpan, s.status === 'failed' ? new Error(s.stopReason ?? 'failed') : undefined);
      }
    }
    d.log?.info({ ...s }, 'judge run finished');
    return s;
  }

  private async record(
    t: Trajectory,
    runId: number,
    outcome: { verdict: NonNullable<VerdictRecord['verdict']> } | { error: string },
    usage: { inputTokens: number; outputTokens: number },
    cost: number,
    s: RunSummary,
  ): Promise<void> {
    const d = this.deps;
    const probability = t.probability ?? 1;
    const effort = agentEffort(t);
    const rec: VerdictRecord = {
      traceId: t.traceId,
      runId,
      timeMs: d.now(),
      service: t.service,
      model: t.model,
      status: 'verdict' in outcome ? 'ok' : 'error',
      ...outcome,
      promptVersion: d.prompt.version,
      judgeModel: d.client.model,
      probability,
      weight: weightOf(probability),
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cost,
      agentTokens: effort.tokens,
      agentToolCalls: effort.toolCalls,
    };
    await d.store.verdicts.recordVerdict(rec);
    if (rec.verdict) {
      s.judged++;
      d.metrics?.verdict(t.service, rec.verdict);
    } else {
      s.errors++;
      d.metrics?.error('invalid_verdict');
    }
    if (d.onVerdict) {
      try {
        await d.onVerdict(rec);
      } catch (err) {
        d.log?.warn({ err, traceId: t.traceId }, 'judge: onVerdict hook failed');
      }
    }
  }
}

/** One request to the judge model, a child of its run. */
function requestSpan(tracer: Tracer, run: Span, traceId: string, service: string, estimatedInputTokens: number): Span {
  return startChild(tracer, 'judge request', run, {
    'toolwatch.judge.trace_id': traceId,
    'toolwatch.service': service,
    'toolwatch.judge.estimated_input_tokens': estimatedInputTokens,
  });
}

/**
 * What the judged agent spent on the trajectory: its model tokens (null when no model step reported
 * any, so "not captured" never reads as "free") and its tool calls (proposed, else executed).
 */
export function agentEffort(t: Trajectory): { tokens: number | null; toolCalls: number } {
  let reported = false;
  let proposed = 0;
  let executed = 0;
  for (const s of t.steps) {
    if (s.kind === 'tool') executed++;
    else {
      proposed += s.calls.length;
      if (s.inputTokens !== undefined || s.outputTokens !== undefined) reported = true;
    }
  }
  return { tokens: reported ? t.inputTokens + t.outputTokens : null, toolCalls: Math.max(proposed, executed) };
}
