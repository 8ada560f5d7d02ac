/**
 * A retrying OTLP/HTTP sender that behaves like the OpenTelemetry exporters: it resends a batch on
 * 429/502/503/504 and on connection errors, waiting Retry-After (capped, to keep the probes short),
 * and it records which batches were acknowledged (200). Every batch carries its own tool name, so
 * the store's per-tool counts say exactly how often each batch was counted.
 */
export interface SentBatch {
  id: number;
  tool: string;
  calls: number;
  /** Answered 200. */
  acked: boolean;
  /** Sent at least once without an answer (the connection broke): it may have been recorded. */
  unanswered: boolean;
  attempts: number;
  /** When each attempt started (ms). */
  attemptsAt: number[];
  /** Tool spans only: counted after the grace period; one execution per call. */
  toolOnly: boolean;
}

export interface SenderOptions {
  url: () => string;
  /**
   * Where a batch (each is one trace) goes on this attempt: as the Collector's loadbalancing exporter,
   * by trace id over the replicas it currently knows. Default: url().
   */
  route?: (traceId: string) => string;
  /** Every n-th batch holds tool spans only (no proposal): its calls wait out the grace period. */
  toolOnlyEvery?: number;
  service: string;
  callsPerBatch: number;
  concurrency: number;
  /** Stop starting new batches after this long. */
  durationMs: number;
  /** Keep retrying a started batch until this long after the start (then it is given up). */
  giveUpMs: number;
  maxRetryDelayMs?: number;
  /** The OTLP/JSON body of batch `id` (one trace, traceIdOf(id)); default: batchBody. */
  body?: (id: number) => string;
}

export interface SenderResult {
  batches: SentBatch[];
  statuses: Map<number, number>;
  connectionErrors: number;
}

const TRACE_PREFIX = 'feed';

/** The trace id of batch `id` (one trace per batch). */
export const traceIdOf = (id: number): string => `${TRACE_PREFIX}${id.toString(16).padStart(28, '0')}`;

/** A proposal per call (model spans), or with `toolOnly` an execute_tool span per call and no proposal. */
export function batchBody(service: string, id: number, calls: number, toolOnly = false): string {
  const traceId = traceIdOf(id);
  const at = String(Date.now() * 1e6);
  const proposal = (i: number) => [
    { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
    {
      key: 'gen_ai.output.messages',
      value: {
        stringValue: JSON.stringify([
          { role: 'assistant', parts: [{ type: 'tool_call', id: `c${i}`, name: `t${id}`, arguments: '{}' }] },
        ]),
      },
    },
  ];
  const execution = (i: number) => [
    { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
    { key: 'gen_ai.tool.name', value: { stringValue: `t${id}` } },
    { key: 'gen_ai.tool.call.id', value: { stringValue: `c${i}` } },
  ];
  const spans = Array.from({ length: calls }, (_, i) => ({
    traceId,
    spanId: (i + 1).toString(16).padStart(16, '0'),
    name: toolOnly ? `execute_tool t${id}` : 'chat',
    startTimeUnixNano: at,
    endTimeUnixNano: at,
    attributes: toolOnly ? execution(i) : proposal(i),
  }));
  return JSON.stringify({
    resourceSpans: [
      { resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] }, scopeSpans: [{ spans }] },
    ],
  });
}

export async function runSender(o: SenderOptions): Promise<SenderResult> {
  const batches: SentBatch[] = [];
  const statuses = new Map<number, number>();
  let connectionErrors = 0;
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (Date.now() - started < o.durationMs) {
      const b: SentBatch = {
        id: next++,
        tool: '',
        calls: o.callsPerBatch,
        acked: false,
        unanswered: false,
        attempts: 0,
        attemptsAt: [],
        toolOnly: false,
      };
      b.tool = `t${b.id}`;
      b.toolOnly = o.toolOnlyEvery !== undefined && b.id % o.toolOnlyEvery === 0;
      batches.push(b);
      const body = o.body ? o.body(b.id) : batchBody(o.service, b.id, o.callsPerBatch, b.toolOnly);
      const traceId = traceIdOf(b.id);
      while (!b.acked && Date.now() - started < o.giveUpMs) {
        b.attempts++;
        b.attemptsAt.push(Date.now());
        let wait = 50;
        try {
          const res = await fetch(`${o.route ? o.route(traceId) : o.url()}/v1/traces`, {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json' },
            signal: AbortSignal.timeout(10_000),
          });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 200) b.acked = true;
          else if ([429, 502, 503, 504].includes(res.status))
            wait = Math.min(Number(res.headers.get('retry-after') ?? 1) * 1000, o.maxRetryDelayMs ?? 200);
          else throw new Error(`batch ${b.id}: ${res.status} is not retryable`);
        } catch (err) {
          if ((err as Error).message.includes('not retryable')) throw err;
          connectionErrors++;
          b.unanswered = true;
        }
        if (!b.acked) await new Promise((r) => setTimeout(r, wait));
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return { batches, statuses, connectionErrors };
}

interface StatsTool {
  tool: string;
  total: number;
  executions?: { total: number };
}

async function statsTools(url: string, service: string): Promise<StatsTool[]> {
  const res = await fetch(`${url}/api/stats?window=1d&service=${encodeURIComponent(service)}`);
  if (!res.ok) throw new Error(`/api/stats: ${res.status}`);
  return ((await res.json()) as { tools: StatsTool[] }).tools;
}

/** Per tool, the calls the store counted for this service (/api/stats over the last day). */
export async function countedPerTool(url: string, service: string): Promise<Map<string, number>> {
  return new Map((await statsTools(url, service)).map((t) => [t.tool, t.total]));
}

/** Per tool, the executions the store counted for this service. */
export async function executionsPerTool(url: string, service: string): Promise<Map<string, number>> {
  return new Map((await statsTools(url, service)).map((t) => [t.tool, t.executions?.total ?? 0]));
}

export interface ExecutionAudit {
  /** Acknowledged batches of tool spans (one execution per call). */
  acked: number;
  /** Of those, with every execution counted exactly once. */
  once: number;
  /** With fewer executions counted than sent. */
  lost: number;
  /** Lost although no attempt of the batch started inside a loss window: must be 0. */
  lostOutside: number;
  /** With more executions counted than sent: must be 0. */
  doubled: number;
}

/**
 * Executions are held in memory for `dedupe.status_grace` before they are counted (README, Downstream
 * and execution errors): a kill -9 may lose those of batches recorded shortly before it — `windows`,
 * [from, to] in ms — and nothing else; none is ever counted twice.
 */
export function auditExecutions(
  batches: readonly SentBatch[],
  executed: ReadonlyMap<string, number>,
  windows: readonly (readonly [number, number])[] = [],
): ExecutionAudit {
  const a: ExecutionAudit = { acked: 0, once: 0, lost: 0, lostOutside: 0, doubled: 0 };
  const inWindow = (b: SentBatch) => b.attemptsAt.some((t) => windows.some(([from, to]) => t >= from && t <= to));
  for (const b of batches) {
    if (!b.toolOnly) continue;
    const n = executed.get(b.tool) ?? 0;
    if (n > b.calls) a.doubled++;
    if (!b.acked) continue;
    a.acked++;
    if (n === b.calls) a.once++;
    else if (n < b.calls) {
      a.lost++;
      if (!inWindow(b)) a.lostOutside++;
    }
  }
  return a;
}

export interface Audit {
  acked: number;
  ackedCalls: number;
  /** Acknowledged batches with fewer calls counted than sent: must be 0. */
  lost: number;
  /** Batches counted more than once. */
  doubled: number;
  /** Of those, batches that were sent without an answer at some point (a crash window). */
  doubledAfterUnanswered: number;
  /** Counted calls of batches never sent by this sender: must be 0. */
  stray: number;
}

export function audit(batches: readonly SentBatch[], counted: ReadonlyMap<string, number>): Audit {
  const byTool = new Map(batches.map((b) => [b.tool, b]));
  const a: Audit = { acked: 0, ackedCalls: 0, lost: 0, doubled: 0, doubledAfterUnanswered: 0, stray: 0 };
  for (const b of batches) {
    const n = counted.get(b.tool) ?? 0;
    if (b.acked) {
      a.acked++;
      a.ackedCalls += b.calls;
      if (n < b.calls) a.lost++;
    }
    if (n > b.calls) {
      a.doubled++;
      if (b.unanswered) a.doubledAfterUnanswered++;
    }
  }
  for (const [tool, n] of counted) if (!byTool.has(tool)) a.stray += n;
  return a;
}
