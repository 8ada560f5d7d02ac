/**
 * `eval run`: every case × repeat × model × variant, `concurrency` at a time, each result appended
 * to the predictions file the moment it completes (an interrupted run keeps what it finished).
 * Raw requests and responses are redacted with the judge's redactor before they are written; if
 * redaction fails, the raw value is replaced by null (fail closed), never written as is.
 */
import { randomUUID } from 'node:crypto';
import { createRedactor } from '../redact/redact.js';
import type { AdapterRegistry, ModelAdapter } from './adapters/adapter.js';
import { converse, type ConversationResult } from './conversation.js';
import { appendRecord, type ResultRecord, type RunRecord } from './records.js';
import { choiceOf } from './tool-choice.js';
import { toolsFor, type ModelSpec, type Suite, type Variant } from './suite.js';
import { regexpLiteral } from '../util/regexp-literal.js';

export interface RunOptions {
  suite: Suite;
  models: readonly ModelSpec[];
  variants: readonly Variant[];
  out: string;
  adapters: AdapterRegistry;
  /** Environment variables (keys are read from here only). */
  env: Readonly<Record<string, string | undefined>>;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  runId?: string;
  onResult?: (r: ResultRecord, done: number, total: number) => void;
}

export interface RunSummary {
  runId: string;
  header: RunRecord;
  results: ResultRecord[];
}

/** The key for a model: its api_key_env, else EVAL_API_KEY; undefined = send none (local servers). */
export function apiKeyFor(spec: ModelSpec, env: RunOptions['env']): string | undefined {
  const v = spec.apiKeyEnv ? env[spec.apiKeyEnv] : env.EVAL_API_KEY;
  return v ? v : undefined;
}

/** Models whose api_key_env names a variable that is not set: refused before anything runs. */
export function missingKeys(models: readonly ModelSpec[], env: RunOptions['env']): string[] {
  return models
    .filter((m) => m.apiKeyEnv && !env[m.apiKeyEnv])
    .map((m) => `${m.label}: environment variable ${m.apiKeyEnv} is not set`);
}

export async function runSuite(o: RunOptions): Promise<RunSummary> {
  const { suite } = o;
  const s = suite.settings;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = o.now ?? Date.now;
  const runId =
    o.runId ?? `${new Date(now()).toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${randomUUID().slice(0, 8)}`;
  // The keys in use are masked too, whatever their format (a provider may echo one in an error).
  const keys = [...new Set(o.models.map((m) => apiKeyFor(m, o.env)).filter((k): k is string => Boolean(k)))];
  const literal = keys.map(regexpLiteral);
  const redactor = createRedactor({ fields: s.redact.fields, patterns: [...s.redact.patterns, ...literal] });
  const redact = (v: unknown): unknown => {
    try {
      return redactor.value(v);
    } catch {
      return null;
    }
  };
  const header: RunRecord = {
    type: 'run',
    runId,
    startedAt: new Date(now()).toISOString(),
    suite: suite.name,
    datasetVersion: s.datasetVersion,
    variants: [...o.variants],
    models: o.models.map((m) => ({
      label: m.label,
      provider: m.provider,
      model: m.model,
      ...(m.baseUrl ? { baseUrl: m.baseUrl } : {}),
      ...(m.params ? { params: m.params } : {}),
    })),
    repeats: s.repeats,
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
    cases: suite.cases.length,
    ...(s.judge
      ? {
          judge: {
            provider: s.judge.provider,
            model: s.judge.model,
            baseUrl: s.judge.baseUrl,
            promptVersion: s.judge.promptVersion,
            temperature: s.judge.temperature,
          },
        }
      : {}),
  };
  appendRecord(o.out, header);

  const adapters = new Map<string, ModelAdapter>();
  for (const m of o.models) {
    adapters.set(
      m.label,
      o.adapters.create(m, {
        ...(apiKeyFor(m, o.env) ? { apiKey: apiKeyFor(m, o.env)! } : {}),
        timeoutMs: s.timeoutMs,
        retry: { maxRetries: s.maxRetries, maxRetryWaitMs: s.maxRetryWaitMs, sleep },
        now,
      }),
    );
  }
  const tasks: { model: ModelSpec; variant: Variant; caseIdx: number; repeat: number }[] = [];
  for (const model of o.models) {
    for (const variant of o.variants) {
      for (let caseIdx = 0; caseIdx < suite.cases.length; caseIdx++) {
        for (let repeat = 1; repeat <= s.repeats; repeat++) tasks.push({ model, variant, caseIdx, repeat });
      }
    }
  }
  const results: ResultRecord[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      const c = suite.cases[task.caseIdx]!;
      const startedAt = new Date(now()).toISOString();
      let conv: ConversationResult;
      try {
        conv = await converse({
          adapter: adapters.get(task.model.label)!,
          case: c,
          system: suite.system,
          tools: toolsFor(suite, c, task.variant),
          ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
          ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
          toolChoice: choiceOf(task.variant),
          schemas: suite.schemas,
          redact,
          ...(suite.stateful ? { stateful: suite.stateful } : {}),
        });
      } catch (err) {
        // A fault of ours is coverage loss like any other, not the end of the run.
        const message = String(redact(String((err as Error)?.message ?? err)) ?? '[redacted]').slice(0, 500);
        const error = { code: 'harness' as const, message };
        conv = {
          status: 'provider_error',
          error,
          turns: [],
          latencyMs: 0,
          usage: { inputTokens: 0, outputTokens: 0 },
          attempts: 0,
        };
      }
      const last = conv.turns[conv.turns.length - 1];
      const record: ResultRecord = {
        type: 'result',
        runId,
        datasetVersion: s.datasetVersion,
        suite: suite.name,
        variant: task.variant,
        provider: task.model.provider,
        model: task.model.model,
        label: task.model.label,
        caseId: c.id,
        repeat: task.repeat,
        startedAt,
        status: conv.status,
        ...(conv.error ? { error: conv.error } : {}),
        outcome: last
          ? last.outcome
          : { kind: 'provider_error', code: 'harness', message: conv.error?.message ?? 'no request was made' },
        turns: conv.turns,
        latencyMs: conv.latencyMs,
        usage: conv.usage,
        attempts: conv.attempts,
        // Not redacted: the fake tools' state is the suite's own data, compared as is with expected_state.
        ...(conv.endState !== undefined ? { endState: conv.endState } : {}),
      };
      appendRecord(o.out, record);
      results.push(record);
      o.onResult?.(record, results.length, tasks.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(s.concurrency, tasks.length) }, worker));
  return { runId, header, results };
}
