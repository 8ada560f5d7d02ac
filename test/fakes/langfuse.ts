/**
 * A local Langfuse public API (the parts toolwatch uses), as documented: basic auth (401
 * otherwise), GET /api/public/v2/observations (cursor pages, newest first, `fields` groups, input
 * and output as raw strings, limit ≤ 1000), the legacy page-based GET /api/public/observations,
 * POST /api/public/scores (upsert by id). Modes and one-shot faults: an "old server" without v2
 * (404), 429 with Retry-After, 500, a hung answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StoredObservation {
  id: string;
  traceId: string;
  type: string;
  name: string;
  startTime: string;
  endTime: string;
  parentObservationId?: string | null;
  level?: string;
  statusMessage?: string | null;
  input?: unknown;
  output?: unknown;
  metadata?: unknown;
  model?: string | null;
  usageDetails?: Record<string, number>;
}

export type Fault = { status: 429; retryAfter?: string } | { status: 500 | 502 | 503 } | { hangMs: number };
type Endpoint = 'v2' | 'v1' | 'scores';

export interface FakeLangfuse {
  url: string;
  publicKey: string;
  secretKey: string;
  observations: StoredObservation[];
  scores: Map<string, Record<string, unknown>>;
  /** Every request: endpoint, status answered, query. */
  log: { endpoint: string; status: number; query: Record<string, string> }[];
  /** The server has no v2 endpoint (older self-hosted Langfuse). */
  oldServer: boolean;
  faults: Record<Endpoint, Fault[]>;
  close(): Promise<void>;
}

const GROUPS: Record<string, string[]> = {
  core: ['id', 'traceId', 'startTime', 'endTime', 'projectId', 'parentObservationId', 'type'],
  basic: ['name', 'level', 'statusMessage', 'version', 'environment', 'bookmarked', 'public', 'userId', 'sessionId', 'isRootObservation'],
  time: ['completionStartTime', 'createdAt', 'updatedAt'],
  io: ['input', 'output'],
  metadata: ['metadata'],
  model: ['model', 'internalModelId', 'modelParameters'],
  usage: ['usageDetails', 'costDetails', 'totalCost', 'usagePricingTierName'],
  prompt: ['promptId', 'promptName', 'promptVersion'],
  metrics: ['latency', 'timeToFirstToken'],
  trace_context: ['tags', 'release', 'traceName'],
};

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Newest first; ties broken by id (descending), so the order is total and a keyset cursor exact. */
function newestFirst(a: StoredObservation, b: StoredObservation): number {
  return Date.parse(b.startTime) - Date.parse(a.startTime) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

function inWindow(o: StoredObservation, q: URLSearchParams): boolean {
  const t = Date.parse(o.startTime);
  const from = q.get('fromStartTime');
  const to = q.get('toStartTime');
  if (from && t < Date.parse(from)) return false;
  if (to && t >= Date.parse(to)) return false;
  if (q.get('type') && o.type !== q.get('type')) return false;
  if (q.get('traceId') && o.traceId !== q.get('traceId')) return false;
  return true;
}

function full(o: StoredObservation): Record<string, unknown> {
  return {
    projectId: 'p1',
    environment: 'default',
    parentObservationId: null,
    level: 'DEFAULT',
    statusMessage: null,
    model: null,
    metadata: {},
    usageDetails: {},
    version: null,
    ...o,
  };
}

export async function startFakeLangfuse(): Promise<FakeLangfuse> {
  const fake: FakeLangfuse = {
    url: '',
    publicKey: 'pk-lf-test',
    secretKey: 'sk-lf-secret-do-not-leak',
    observations: [],
    scores: new Map(),
    log: [],
    oldServer: false,
    faults: { v2: [], v1: [], scores: [] },
    close: async () => {},
  };
  const expected = `Basic ${Buffer.from(`${fake.publicKey}:${fake.secretKey}`).toString('base64')}`;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const u = new URL(req.url ?? '/', 'http://x');
    const q = u.searchParams;
    const endpoint: Endpoint | undefined =
      req.method === 'GET' && u.pathname === '/api/public/v2/observations' ? 'v2' : req.method === 'GET' && u.pathname === '/api/public/observations' ? 'v1' : req.method === 'POST' && u.pathname === '/api/public/scores' ? 'scores' : undefined;
    const answer = (status: number, body: unknown, headers?: Record<string, string>) => {
      fake.log.push({ endpoint: endpoint ?? u.pathname, status, query: Object.fromEntries(q) });
      json(res, status, body, headers);
    };
    if (req.headers.authorization !== expected) return answer(401, { message: 'Invalid credentials' });
    if (!endpoint || (endpoint === 'v2' && fake.oldServer)) return answer(404, { message: 'Not found' });
    const fault = fake.faults[endpoint].shift();
    if (fault) {
      if ('hangMs' in fault) {
        await new Promise((r) => setTimeout(r, fault.hangMs));
        if (res.destroyed || req.destroyed) return;
      } else if (fault.status === 429) return answer(429, { message: 'rate limit exceeded' }, fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {});
      else return answer(fault.status, { message: 'internal error' });
    }

    if (endpoint === 'v2') {
      const limit = Number(q.get('limit') ?? 50);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return answer(400, { message: 'limit must be 1..1000' });
      if (q.get('parseIoAsJson') === 'true') return answer(400, { message: 'parseIoAsJson is deprecated' });
      const groups = new Set((q.get('fields') ?? 'core,basic').split(',').map((s) => s.trim()));
      groups.add('core');
      let rows = fake.observations.filter((o) => inWindow(o, q)).sort(newestFirst);
      const cursor = q.get('cursor');
      if (cursor) {
        const after = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8')) as { t: number; id: string };
        rows = rows.filter((o) => newestFirst(o, { startTime: new Date(after.t).toISOString(), id: after.id } as StoredObservation) > 0);
      }
      const page = rows.slice(0, limit);
      const data = page.map((o) => {
        const f = full(o);
        const out: Record<string, unknown> = {};
        for (const g of groups) for (const k of GROUPS[g] ?? []) if (k in f) out[k] = f[k];
        // v2 returns input/output as raw strings.
        if ('input' in out) out['input'] = o.input === undefined ? null : JSON.stringify(o.input);
        if ('output' in out) out['output'] = o.output === undefined ? null : JSON.stringify(o.output);
        return out;
      });
      const last = page[page.length - 1];
      const meta = rows.length > limit && last ? { cursor: Buffer.from(JSON.stringify({ t: Date.parse(last.startTime), id: last.id })).toString('base64') } : {};
      return answer(200, { data, meta });
    }
    if (endpoint === 'v1') {
      const page = Number(q.get('page') ?? 1);
      const limit = Number(q.get('limit') ?? 50);
      const rows = fake.observations.filter((o) => inWindow(o, q)).sort(newestFirst);
      const data = rows.slice((page - 1) * limit, page * limit).map((o) => ({ ...full(o), usage: { input: o.usageDetails?.['input'] ?? 0, output: o.usageDetails?.['output'] ?? 0 } }));
      return answer(200, { data, meta: { page, limit, totalItems: rows.length, totalPages: Math.ceil(rows.length / limit) } });
    }
    // POST /api/public/scores
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return answer(400, { message: 'invalid json' });
    }
    const ok =
      typeof body['name'] === 'string' &&
      (typeof body['traceId'] === 'string' || typeof body['sessionId'] === 'string') &&
      (body['dataType'] === 'CATEGORICAL' ? typeof body['value'] === 'string' : body['dataType'] === 'BOOLEAN' ? body['value'] === 0 || body['value'] === 1 : typeof body['value'] === 'number');
    if (!ok) return answer(400, { message: 'invalid score' });
    const id = typeof body['id'] === 'string' ? body['id'] : `score-${fake.scores.size + 1}`;
    fake.scores.set(id, body);
    return answer(200, { id });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => json(res, 500, { message: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
