/**
 * Summarises a V8 .cpuprofile (from `node bench/run.js --cpu-prof DIR`): top functions by self
 * time, and by inclusive time for a few chosen frames. Usage: node bench/profile-top.js FILE [N]
 */
import { readFileSync } from 'node:fs';

const [file, nArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/profile-top.js FILE.cpuprofile [N]\n');
  process.exit(2);
}
const N = Number(nArg ?? 40);
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
const counts = new Map();
for (const s of prof.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
const total = prof.samples.length;
const short = (url) => url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'nm/').replace(/^.*\/dist\//, 'dist/');
const keyOf = (n) => `${n.callFrame.functionName || '(anonymous)'}  ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
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
const pct = (c) => ((100 * c) / total).toFixed(1).padStart(5) + '%';
console.log(`${total} samples`);
console.log('--- self time');
for (const [k, c] of [...self].sort((a, b) => b[1] - a[1]).slice(0, N)) console.log(pct(c), k);
console.log('--- inclusive time (dist/ frames and a few libraries)');
for (const [k, c] of [...incl].sort((a, b) => b[1] - a[1]).filter(([k]) => /dist\/|better-sqlite3|prom-client|ajv|fastify/.test(k)).slice(0, N)) console.log(pct(c), k);
