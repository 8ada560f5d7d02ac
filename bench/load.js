/**
 * The load generator, run as its own process (bench/run.js pins it to its own core). Sends the
 * pre-encoded OTLP/protobuf bodies written by run.js over keep-alive HTTP/1.1 (node:http Agent) on a
 * fixed number of connections, in one of two modes:
 *
 *   max  — closed loop: every connection sends its next request as soon as the previous answer
 *          arrived, for `warmup` + `duration` seconds (or until `requests` were sent); only
 *          completions inside the measured window count for the rates and latencies.
 *   rate — open loop at a fixed request rate: request i is due at start + i/rate whatever happened
 *          before, and its latency is measured from that scheduled time, not from when a free
 *          connection picked it up, so a stalled server cannot hide its stall (coordinated omission).
 *
 * Every send gets fresh trace ids: bytes 8..15 of each span's trace_id (offsets from the fixtures)
 * become (run id, sequence number), so the service sees new traces, never a resent batch — except
 * with `resend: {runId, every}`: then send k is the byte-identical body send `every × k` of that
 * earlier run sent (a late resend, as an exporter's retry after a lost answer).
 *
 * Usage: node bench/load.js '{"fixtures":DIR,"port":N,"mode":"max"|"rate",...}'
 * Writes exactly one JSON line to stdout.
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const opts = {
  host: '127.0.0.1',
  connections: 16,
  warmup: 2,
  duration: 8,
  rate: 0, // requests per second (mode rate)
  requests: 0, // mode max: stop after this many requests (0 = run for the whole duration)
  runId: 1,
  timeoutMs: 30_000,
  maxOutstanding: 5_000,
  ...JSON.parse(process.argv[2] ?? '{}'),
};
if (!opts.fixtures || !opts.port || !['max', 'rate'].includes(opts.mode)) {
  process.stderr.write('usage: node bench/load.js \'{"fixtures":DIR,"port":N,"mode":"max"|"rate","rate":R}\'\n');
  process.exit(2);
}
if (opts.mode === 'rate' && !(opts.rate > 0)) {
  process.stderr.write('load: mode rate needs rate > 0\n');
  process.exit(2);
}

// ---------------------------------------------------------------- fixtures

const all = readFileSync(path.join(opts.fixtures, 'bodies.bin'));
const meta = JSON.parse(readFileSync(path.join(opts.fixtures, 'meta.json'), 'utf8'));
const bodies = meta.bodies.map((m) => ({ ...m, bytes: all.subarray(m.start, m.start + m.length) }));
const OUTCOMES = meta.outcomeNames;

let seq = 0;
/** A copy of fixture body i with fresh trace ids: (8 fixed bytes per trace, runId, sequence). */
function nextBody() {
  let s = opts.resend ? ++seq * opts.resend.every : ++seq;
  // A send the earlier run saw refused (shed) was never recorded: resending it is no duplicate.
  while (opts.resend?.skip?.includes(s)) s = ++seq * opts.resend.every;
  const b = bodies[(s - 1) % bodies.length];
  const runId = opts.resend ? opts.resend.runId : opts.runId;
  const buf = Buffer.allocUnsafe(b.bytes.length);
  b.bytes.copy(buf);
  for (const off of b.traceIdOffsets) {
    buf.writeUInt32BE(runId >>> 0, off + 8);
    buf.writeUInt32BE(s >>> 0, off + 12);
  }
  return { buf, b: { ...b, seq: s } };
}

// ---------------------------------------------------------------- HTTP

const agent = new http.Agent({
  keepAlive: true,
  maxSockets: opts.connections,
  maxFreeSockets: opts.connections,
  scheduling: 'fifo',
});

/** Sends one body; resolves with the status (0 = transport error). Never rejects. */
function post(buf) {
  return new Promise((resolve) => {
    let settled = false;
    const done = (status, err) => {
      if (settled) return;
      settled = true;
      resolve({ status, err });
    };
    const req = http.request(
      {
        agent,
        host: opts.host,
        port: opts.port,
        method: 'POST',
        path: '/v1/traces',
        headers: { 'content-type': 'application/x-protobuf', 'content-length': buf.length },
        timeout: opts.timeoutMs,
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => done(res.statusCode ?? 0));
        res.on('error', (e) => done(0, e));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => done(0, e));
    req.end(buf);
  });
}

// ---------------------------------------------------------------- bookkeeping

const total = { requests: 0, ok: 0, spans: 0, calls: 0, outcomes: Object.fromEntries(OUTCOMES.map((o) => [o, 0])) };
const window = { completed: 0, spans: 0, calls: 0, latencies: [], ends: [] };
const statusCounts = {};
let errors = 0;
/** Sequence numbers of the sends not answered 200. */
const refused = [];
let firstError;
let measureStart = 0;
let measureEnd = Infinity;

const nowMs = () => performance.now();

function record(b, res, latencyMs, endedAt) {
  total.requests++;
  statusCounts[res.status] = (statusCounts[res.status] ?? 0) + 1;
  if (res.status === 0) {
    errors++;
    firstError ??= res.err?.message;
  }
  if (res.status !== 200) refused.push(b.seq);
  if (res.status === 200) {
    total.ok++;
    total.spans += b.spans;
    total.calls += b.calls;
    for (const o of OUTCOMES) total.outcomes[o] += b.outcomes[o];
  }
  if (endedAt >= measureStart && endedAt <= measureEnd) {
    window.completed++;
    if (res.status === 200) {
      window.spans += b.spans;
      window.calls += b.calls;
    }
    window.latencies.push(latencyMs);
    if (opts.tail) window.ends.push(endedAt);
  }
}

// ---------------------------------------------------------------- modes

async function runMax() {
  const t0 = nowMs();
  measureStart = t0 + opts.warmup * 1000;
  measureEnd = measureStart + opts.duration * 1000;
  let budget = opts.requests > 0 ? opts.requests : Infinity;
  const worker = async () => {
    while (nowMs() < measureEnd && budget-- > 0) {
      const { buf, b } = nextBody();
      const sent = nowMs();
      const res = await post(buf);
      const ended = nowMs();
      record(b, res, ended - sent, ended);
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, worker));
  // With a request budget the run may end before the window does.
  const measuredSeconds = Math.min(
    opts.duration,
    Math.max(0.001, (Math.min(nowMs(), measureEnd) - measureStart) / 1000),
  );
  return { measuredSeconds };
}

async function runRate() {
  const intervalMs = 1000 / opts.rate;
  const t0 = nowMs() + 5;
  measureStart = t0 + opts.warmup * 1000;
  const stopAt = measureStart + opts.duration * 1000;
  measureEnd = Infinity; // every request scheduled inside the window is waited for
  let i = 0;
  let outstanding = 0;
  let maxOutstanding = 0;
  let behind = false;
  const inflight = new Set();
  await new Promise((resolveAll) => {
    const tick = () => {
      const now = nowMs();
      while (t0 + i * intervalMs <= now && t0 + i * intervalMs < stopAt) {
        if (outstanding >= opts.maxOutstanding) {
          behind = true;
          break;
        }
        const scheduled = t0 + i * intervalMs;
        i++;
        const { buf, b } = nextBody();
        outstanding++;
        maxOutstanding = Math.max(maxOutstanding, outstanding);
        const p = post(buf).then((res) => {
          outstanding--;
          const ended = nowMs();
          // Latency from the scheduled send time (includes any wait for a free connection).
          if (scheduled >= measureStart) record(b, res, ended - scheduled, ended);
          else record(b, res, ended - scheduled, -1);
          inflight.delete(p);
        });
        inflight.add(p);
      }
      if (behind || t0 + i * intervalMs >= stopAt) {
        clearInterval(timer);
        Promise.all([...inflight]).then(resolveAll);
      }
    };
    const timer = setInterval(tick, 1);
  });
  return {
    measuredSeconds: opts.duration,
    scheduledInWindow: Math.max(0, i - Math.ceil((opts.warmup * 1000) / intervalMs)),
    maxOutstanding,
    fellBehind: behind,
  };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

const cpu0 = process.cpuUsage();
const wall0 = nowMs();
const extra = opts.mode === 'max' ? await runMax() : await runRate();
const cpu = process.cpuUsage(cpu0);
const wallMs = nowMs() - wall0;
agent.destroy();

const lat = Float64Array.from(window.latencies).sort();
const secs = extra.measuredSeconds;
const round = (x, d = 2) => (x === null || x === undefined ? null : Math.round(x * 10 ** d) / 10 ** d);
const non200 = total.requests - total.ok;
const out = {
  mode: opts.mode,
  connections: opts.connections,
  targetRate: opts.mode === 'rate' ? opts.rate : undefined,
  targetSpansPerS: opts.mode === 'rate' ? opts.rate * (total.spans / Math.max(1, total.ok)) : undefined,
  measuredSeconds: secs,
  completed: window.completed,
  requestsPerS: round(window.completed / secs, 1),
  spansPerS: Math.round(window.spans / secs),
  callsPerS: Math.round(window.calls / secs),
  latencyMs: {
    p50: round(percentile(lat, 50)),
    p90: round(percentile(lat, 90)),
    p99: round(percentile(lat, 99)),
    max: round(lat.length ? lat[lat.length - 1] : null),
    mean: round(lat.length ? lat.reduce((a, b) => a + b, 0) / lat.length : null),
  },
  non200,
  errors,
  firstError,
  statusCounts,
  total,
  /** Bodies generated (warm-up included): the sequence numbers 1…sent were used. */
  sent: seq,
  refused,
  /** CPU this generator used, as a fraction of one core: near 1.0 means the generator, not the server, may be the limit. */
  generatorCpu: round((cpu.user + cpu.system) / 1000 / wallMs, 2),
  ...(opts.tail ? tailOf(lat) : {}),
  ...extra,
};
process.stdout.write(JSON.stringify(out) + '\n');

/**
 * `tail: true` (run.js --gc-tail): the window's requests at or over its p99 as [start, end, latency],
 * start and end in wall-clock ms (a fixed-rate request starts when it was due), and the window itself.
 */
function tailOf(sorted) {
  const p99 = percentile(sorted, 99);
  const wall = (t) => Math.round((performance.timeOrigin + t) * 10) / 10;
  const tail = [];
  for (let i = 0; i < window.latencies.length; i++) {
    const l = window.latencies[i];
    if (p99 !== null && l >= p99) tail.push([wall(window.ends[i] - l), wall(window.ends[i]), round(l)]);
  }
  return { tail, tailWindow: [wall(measureStart), wall(Math.min(measureEnd, nowMs()))] };
}
