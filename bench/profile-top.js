/**
 * Summarises a V8 .cpuprofile (from `node bench/run.js --cpu-prof DIR`): self time by area (decode,
 * HTTP, normalize, check, pipeline, store, metrics, GC), the top functions by self time, and
 * inclusive time of toolwatch's own frames. Percentages are of the busy (non-idle) samples of the
 * main thread; GC helper threads are not in a V8 profile (run.js prints their CPU share).
 *
 * Usage: node bench/profile-top.js FILE [N]
 *   SKIP_MS=2000     ignore the first 2 s (start-up)
 *   FOCUS=regexp     which frames the inclusive list shows (default: toolwatch and a few libraries)
 *   SHOW_OTHER=1     also list the frames no area claims
 */
import { readFileSync } from 'node:fs';

const [file, nArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/profile-top.js FILE.cpuprofile [N]\n');
  process.exit(2);
}
const N = Number(nArg ?? 40);
const FOCUS = new RegExp(process.env.FOCUS ?? 'dist/|better-sqlite3|prom-client|ajv|fastify');
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
const counts = new Map();
// SKIP_MS: ignore the first milliseconds of the profile (process start-up).
const skipMs = Number(process.env.SKIP_MS ?? 0);
let at = 0;
prof.samples.forEach((s, i) => {
  at += prof.timeDeltas[i] / 1000;
  if (at >= skipMs) counts.set(s, (counts.get(s) ?? 0) + 1);
});
const total = [...counts.values()].reduce((a, b) => a + b, 0);
const short = (url) =>
  url.includes('/node_modules/')
    ? url.replace(/^.*\/node_modules\//, 'nm/')
    : url.replace(/^file:\/\//, '').replace(/^.*\/dist\//, 'dist/');
const keyOf = (n) =>
  `${n.callFrame.functionName || '(anonymous)'}  ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
for (const [id, c] of counts) {
  const k = keyOf(byId.get(id));
  self.set(k, (self.get(k) ?? 0) + c);
}
// inclusive: each sample counts once per distinct key on its stack
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map();
for (const [id, c] of counts) {
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = keyOf(byId.get(cur));
    if (seen.has(k)) continue;
    seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + c);
  }
}
const idle = [...self].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, c]) => a + c, 0);
const busy = total - idle;
const pct = (c) => ((100 * c) / busy).toFixed(1).padStart(5) + '%';
console.log(`${total} samples, ${idle} idle; percentages are of the ${busy} busy samples`);

/** Where a frame belongs, by file. */
const AREAS = [
  ['OTLP decode', /dist\/sources\/otlp\/(decode|protobuf-wire)|protobufjs|^hexSlice/],
  [
    'HTTP + body read (fastify, node:http, streams)',
    /fastify|avvio|find-my-way|light-my-request|node:_http|node:net|node:internal\/streams|node:events|node:buffer|dist\/sources\/otlp\/(body|route)|^writev|^utf8Slice|^\(program\)|^runMicrotasks|processTicksAndRejections|node:internal\/process|^writeBuffer|^writeUtf8String|node:stream/,
  ],
  ['normalize (dialect readers)', /dist\/normalize\//],
  ['JSON.parse (messages, arguments: util/values)', /dist\/util\/values/],
  [
    'per-batch observers (coverage, trajectories, feedback, changes, problems)',
    /dist\/(instrumentation|efficiency|feedback|changes|problems|judge)\//,
  ],
  ['check (classify + Ajv validators)', /dist\/check\/|nm\/ajv|^validate\d* {2}:|^\(anonymous\) {2}:0/],
  ['pipeline (merge, ledger, write plan)', /dist\/pipeline\//],
  ['store (better-sqlite3)', /dist\/store\/|better-sqlite3/],
  ['metrics (prom-client)', /prom-client|dist\/metrics\//],
  ['garbage collector', /^\(garbage collector\)/],
];
const areas = new Map();
for (const [k, c] of self) {
  if (k.startsWith('(idle)')) continue;
  const area = AREAS.find(([, re]) => re.test(k))?.[0] ?? 'other';
  areas.set(area, (areas.get(area) ?? 0) + c);
}
console.log('--- self time by area');
for (const [a, c] of [...areas].sort((x, y) => y[1] - x[1])) console.log(pct(c), a);
console.log('--- self time');
for (const [k, c] of [...self]
  .filter(([k]) => !k.startsWith('(idle)'))
  .sort((a, b) => b[1] - a[1])
  .slice(0, N))
  console.log(pct(c), k);
console.log('--- inclusive time (dist/ frames and a few libraries)');
for (const [k, c] of [...incl]
  .sort((a, b) => b[1] - a[1])
  .filter(([k]) => FOCUS.test(k))
  .slice(0, N))
  console.log(pct(c), k);
if (process.env.SHOW_OTHER) {
  console.log('--- "other" frames');
  for (const [k, c] of [...self]
    .filter(([k]) => !k.startsWith('(idle)') && !AREAS.some(([, re]) => re.test(k)))
    .sort((a, b) => b[1] - a[1])
    .slice(0, N))
    console.log(pct(c), k);
}
