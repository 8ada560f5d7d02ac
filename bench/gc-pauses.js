/**
 * Preloaded into toolwatch by `npm run bench -- --gc-tail` (`node --import`): appends every garbage
 * collection pause of its main thread to the file BENCH_GC_LOG names, one line each — wall-clock start
 * (ms since the epoch), duration (ms) and kind (perf_hooks: 1 scavenge, 4 mark-compact, 8 the start of
 * incremental marking, 16 weak callbacks) — so bench/gc-tail.js can tell which of a phase's slowest
 * requests a pause explains. Lines are buffered and written four times a second and at exit.
 */
import { appendFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const file = process.env.BENCH_GC_LOG;
if (file) {
  let lines = [];
  const flush = () => {
    if (lines.length === 0) return;
    appendFileSync(file, `${lines.join('\n')}\n`);
    lines = [];
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      lines.push(
        `${(performance.timeOrigin + e.startTime).toFixed(1)} ${e.duration.toFixed(2)} ${e.detail?.kind ?? 0}`,
      );
  }).observe({ entryTypes: ['gc'] });
  setInterval(flush, 250).unref();
  process.on('exit', flush);
}
