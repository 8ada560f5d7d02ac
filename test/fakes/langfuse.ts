/**
 * A local Langfuse public API (the parts toolwatch uses), as documented: basic auth (401
 * otherwise), GET /api/public/v2/observations (cursor pages, newest first, `fields` groups, input
 * and output as raw strings, limit ≤ 1000), the legacy page-based GET /api/public/observations,
 * POST /api/public/scores (upsert by id), and reading scores back: GET /api/public/v3/scores
 * (cursor pages, limit ≤ 100, `fields` groups details/subject/annotation — unknown ones 400 — and
 * the polymorphic `value`) and GET /api/public/v2/scores (page-based, limit ≤ 100, one `name`,
 * numeric `value` with `stringValue`). Modes and one-shot faults: an "old server" without v2
 * observations (404), a server without v3 scores (404), 429 with Retry-After, 500, a hung answer.
 *
 * Field names as each version has them (Langfuse's OpenAPI document, `fern/apis/server/definition`):
 * v2's `model` group is `providedModelName`, `internalModelId`, `modelParameters`, and its `metadata`
 * group cuts every value longer than 200 characters (a top-level key's value, JSON-encoded when it
 * is not a string) to its first 200 unless the key is listed in `expandMetadata` (comma-separated
 * keys); v1 returns `model`, the deprecated `usage` beside `usageDetails`, and whole metadata.
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
type Endpoint = 'v2' | 'v1' | 'scores' | 'scoresV3' | 'scoresV2';

/** A score as Langfuse keeps it (what POST wrote, or what a user's thumbs-down created). */
export interface StoredScore {
  id: string;
  traceId?: string;
  observationId?: string;
  sessionId?: string;
  name: string;
  dataType: 'NUMERIC' | 'BOOLEAN' | 'CATEGORICAL';
  /** NUMERIC: the number; BOOLEAN: 1 | 0; CATEGORICAL: the category. */
  value: number | string;
  comment?: string;
  source?: 'API' | 'ANNOTATION' | 'EVAL';
  /** ISO 8601. */
  timestamp: string;
}

export interface FakeLangfuse {
  url: string;
  publicKey: string;
  secretKey: string;
  observations: StoredObservation[];
  /** Scores written through POST /api/public/scores (the body as sent, plus `timestamp`). */
  scores: Map<string, Record<string, unknown>>;
  /** Scores GET answers with: every POSTed one, plus what addScore puts in (users' feedback). */
  addScore(s: Omit<StoredScore, 'id' | 'timestamp'> & { id?: string; timestamp?: string }): StoredScore;
  /** Every request: endpoint, status answered, query. */
  log: { endpoint: string; status: number; query: Record<string, string> }[];
  /** The server has no v2 endpoint (older self-hosted Langfuse). */
  oldServer: boolean;
  /** The server has no GET /api/public/v3/scores (self-hosted Langfuse before it). */
  noScoresV3: boolean;
  faults: Record<Endpoint, Fault[]>;
  close(): Promise<void>;
}

const GROUPS: Record<string, string[]> = {
  core: ['id', 'traceId', 'startTime', 'endTime', 'projectId', 'parentObservationId', 'type'],
  basic: [
    'name',
    'level',
    'statusMessage',
    'version',
    'environment',
    'bookmarked',
    'public',
    'userId',
    'sessionId',
    'isRootObservation',
  ],
  time: ['completionStartTime', 'createdAt', 'updatedAt'],
  io: ['input', 'output'],
  metadata: ['metadata'],
  model: ['providedModelName', 'internalModelId', 'modelParameters'],
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

/** Langfuse v2 keeps metadata as top-level keys with string values and cuts each to 200 characters. */
const METADATA_PREVIEW = 200;

function truncatedMetadata(metadata: unknown, expand: ReadonlySet<string>): unknown {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return metadata;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(metadata as Record<string, unknown>)) {
    const chars = [...((typeof v === 'string' ? v : JSON.stringify(v)) ?? '')];
    // A cut JSON value no longer parses: it comes back as the string it was cut to.
    out[k] = expand.has(k) || chars.length <= METADATA_PREVIEW ? v : chars.slice(0, METADATA_PREVIEW).join('');
  }
  return out;
}

/** An observation as v2 returns it, before its field groups are picked. */
function fullV2(o: StoredObservation, expand: ReadonlySet<string>): Record<string, unknown> {
  const { model, ...rest } = full(o);
  const metadata = truncatedMetadata(rest['metadata'], expand);
  return { ...rest, providedModelName: model ?? null, internalModelId: null, modelParameters: null, metadata };
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
    noScoresV3: false,
    faults: { v2: [], v1: [], scores: [], scoresV3: [], scoresV2: [] },
    addScore: (x) => {
      const score: StoredScore = {
        ...x,
        id: x.id ?? `score-${readable.size + 1}`,
        timestamp: x.timestamp ?? new Date().toISOString(),
      };
      readable.set(score.id, score);
      return score;
    },
    close: async () => {},
  };
  const readable = new Map<string, StoredScore>();
  const expected = `Basic ${Buffer.from(`${fake.publicKey}:${fake.secretKey}`).toString('base64')}`;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const u = new URL(req.url ?? '/', 'http://x');
    const q = u.searchParams;
    const routes: Record<string, Endpoint> = {
      'GET /api/public/v2/observations': 'v2',
      'GET /api/public/observations': 'v1',
      'POST /api/public/scores': 'scores',
      'GET /api/public/v3/scores': 'scoresV3',
      'GET /api/public/v2/scores': 'scoresV2',
    };
    const endpoint: Endpoint | undefined = routes[`${req.method} ${u.pathname}`];
    const answer = (status: number, body: unknown, headers?: Record<string, string>) => {
      fake.log.push({ endpoint: endpoint ?? u.pathname, status, query: Object.fromEntries(q) });
      json(res, status, body, headers);
    };
    if (req.headers.authorization !== expected) return answer(401, { message: 'Invalid credentials' });
    if (!endpoint || (endpoint === 'v2' && fake.oldServer) || (endpoint === 'scoresV3' && fake.noScoresV3))
      return answer(404, { message: 'Not found' });
    const fault = fake.faults[endpoint].shift();
    if (fault) {
      if ('hangMs' in fault) {
        await new Promise((r) => setTimeout(r, fault.hangMs));
        if (res.destroyed || req.destroyed) return;
      } else if (fault.status === 429)
        return answer(
          429,
          { message: 'rate limit exceeded' },
          fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {},
        );
      else return answer(fault.status, { message: 'internal error' });
    }

    if (endpoint === 'v2') {
      const limit = Number(q.get('limit') ?? 50);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        return answer(400, { message: 'limit must be 1..1000' });
      if (q.get('parseIoAsJson') === 'true') return answer(400, { message: 'parseIoAsJson is deprecated' });
      const groups = new Set((q.get('fields') ?? 'core,basic').split(',').map((s) => s.trim()));
      groups.add('core');
      let rows = fake.observations.filter((o) => inWindow(o, q)).sort(newestFirst);
      const cursor = q.get('cursor');
      if (cursor) {
        const after = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8')) as { t: number; id: string };
        rows = rows.filter(
          (o) => newestFirst(o, { startTime: new Date(after.t).toISOString(), id: after.id } as StoredObservation) > 0,
        );
      }
      const page = rows.slice(0, limit);
      const expand = new Set((q.get('expandMetadata') ?? '').split(',').map((k) => k.trim()));
      const data = page.map((o) => {
        const f = fullV2(o, expand);
        const out: Record<string, unknown> = {};
        for (const g of groups) for (const k of GROUPS[g] ?? []) if (k in f) out[k] = f[k];
        // v2 returns input/output as raw strings.
        if ('input' in out) out['input'] = o.input === undefined ? null : JSON.stringify(o.input);
        if ('output' in out) out['output'] = o.output === undefined ? null : JSON.stringify(o.output);
        return out;
      });
      const last = page[page.length - 1];
      const meta =
        rows.length > limit && last
          ? { cursor: Buffer.from(JSON.stringify({ t: Date.parse(last.startTime), id: last.id })).toString('base64') }
          : {};
      return answer(200, { data, meta });
    }
    if (endpoint === 'v1') {
      const page = Number(q.get('page') ?? 1);
      const limit = Number(q.get('limit') ?? 50);
      const rows = fake.observations.filter((o) => inWindow(o, q)).sort(newestFirst);
      const data = rows.slice((page - 1) * limit, page * limit).map((o) => ({
        ...full(o),
        usage: { input: o.usageDetails?.['input'] ?? 0, output: o.usageDetails?.['output'] ?? 0 },
      }));
      return answer(200, {
        data,
        meta: { page, limit, totalItems: rows.length, totalPages: Math.ceil(rows.length / limit) },
      });
    }
    if (endpoint === 'scoresV3' || endpoint === 'scoresV2') {
      const [status, body] = listScores(endpoint, q);
      return answer(status, body);
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
      (body['dataType'] === 'CATEGORICAL'
        ? typeof body['value'] === 'string'
        : body['dataType'] === 'BOOLEAN'
          ? body['value'] === 0 || body['value'] === 1
          : typeof body['value'] === 'number');
    if (!ok) return answer(400, { message: 'invalid score' });
    const id = typeof body['id'] === 'string' ? body['id'] : `score-${fake.scores.size + 1}`;
    const timestamp = new Date().toISOString();
    fake.scores.set(id, { ...body, timestamp });
    const v = body['value'];
    readable.set(id, {
      id,
      ...(typeof body['traceId'] === 'string' ? { traceId: body['traceId'] } : {}),
      ...(typeof body['observationId'] === 'string' ? { observationId: body['observationId'] } : {}),
      name: String(body['name']),
      dataType: body['dataType'] as StoredScore['dataType'],
      value: typeof v === 'number' || typeof v === 'string' ? v : 0,
      ...(typeof body['comment'] === 'string' ? { comment: body['comment'] } : {}),
      source: 'API',
      timestamp,
    });
    return answer(200, { id });
  };

  /** Both score listings, newest first by timestamp (ties by id), as Langfuse answers them. */
  const listScores = (endpoint: 'scoresV3' | 'scoresV2', q: URLSearchParams): [number, unknown] => {
    const limit = Number(q.get('limit') ?? 50);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return [400, { message: 'limit must be 1..100' }];
    const from = q.get('fromTimestamp');
    const to = q.get('toTimestamp');
    const names = (q.get('name') ?? '').split(',').filter(Boolean);
    const rows = [...readable.values()]
      .filter(
        (s) =>
          (!from || Date.parse(s.timestamp) >= Date.parse(from)) && (!to || Date.parse(s.timestamp) < Date.parse(to)),
      )
      .filter((s) => names.length === 0 || names.includes(s.name))
      .sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp) || (a.id < b.id ? 1 : -1));
    const base = (s: StoredScore) => ({
      id: s.id,
      projectId: 'p1',
      name: s.name,
      dataType: s.dataType,
      source: s.source ?? 'API',
      timestamp: s.timestamp,
      environment: 'default',
      createdAt: s.timestamp,
      updatedAt: s.timestamp,
    });
    if (endpoint === 'scoresV3') {
      const groups = (q.get('fields') ?? '').split(',').filter(Boolean);
      const unknown = groups.filter((g) => !['details', 'subject', 'annotation'].includes(g));
      if (unknown.length) return [400, { message: `unknown field group(s): ${unknown.join(', ')}` }];
      const start = q.get('cursor') ? Number(Buffer.from(q.get('cursor')!, 'base64url').toString('utf8')) : 0;
      const page = rows.slice(start, start + limit);
      const data = page.map((s) => ({
        ...base(s),
        value: s.dataType === 'BOOLEAN' ? s.value === 1 : s.value,
        ...(groups.includes('details') ? { comment: s.comment ?? null, configId: null, metadata: {} } : {}),
        ...(groups.includes('subject')
          ? {
              subject: s.observationId
                ? { kind: 'observation', id: s.observationId, traceId: s.traceId }
                : s.traceId
                  ? { kind: 'trace', id: s.traceId }
                  : { kind: 'session', id: s.sessionId ?? 'session' },
            }
          : {}),
      }));
      const next =
        start + limit < rows.length ? { cursor: Buffer.from(String(start + limit)).toString('base64url') } : {};
      return [200, { data, meta: { limit, ...next } }];
    }
    if (names.length > 1) return [400, { message: 'name: one score name' }];
    const page = Number(q.get('page') ?? 1);
    const data = rows.slice((page - 1) * limit, page * limit).map((s) => ({
      ...base(s),
      traceId: s.traceId ?? null,
      observationId: s.observationId ?? null,
      sessionId: s.sessionId ?? null,
      datasetRunId: null,
      authorUserId: null,
      comment: s.comment ?? null,
      metadata: {},
      configId: null,
      queueId: null,
      value: typeof s.value === 'number' ? s.value : 0,
      ...(s.dataType === 'BOOLEAN'
        ? { stringValue: s.value === 1 ? 'True' : 'False' }
        : s.dataType === 'CATEGORICAL'
          ? { stringValue: String(s.value) }
          : {}),
    }));
    return [200, { data, meta: { page, limit, totalItems: rows.length, totalPages: Math.ceil(rows.length / limit) } }];
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
