/**
 * The real ingest pipeline in-process, as the cost scripts (bench/problems-cost.js,
 * bench/judge-cost.js) drive it to record what it hands a feature: a build's modules, its default
 * config, and a Pipeline at that config over a given store, on a steady clock the caller moves.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The modules of the build in `dist` that a pipeline needs, its default config and store redactor, and `load` for more. */
export async function loadBuild(dist) {
  const dir = path.resolve(dist);
  const load = (p) => import(pathToFileURL(path.join(dir, p)).href);
  const [
    { decodeProtobuf },
    { loadConfig },
    { builtinDialects },
    { Pipeline },
    { Ledger },
    { SqliteStore, migrateSqlite },
    { SqliteSql },
    { ToolRegistry },
    { SchemaCache },
    { LabelCap },
    { createMetrics },
    { storeRedactor },
    { TrajectoryTracker },
    { storedName },
  ] = await Promise.all(
    [
      'sources/otlp/decode-protobuf.js',
      'config.js',
      'normalize/dialects.js',
      'pipeline/pipeline.js',
      'pipeline/ledger.js',
      'store/sqlite.js',
      'store/sqlite-sql.js',
      'check/registry.js',
      'check/schema-cache.js',
      'metrics/label-cap.js',
      'metrics/registry.js',
      'redact/stored.js',
      'efficiency/tracker.js',
      // Where a build keeps storedName: call-labels.js since the labels left write-batch.js.
      'pipeline/call-labels.js',
    ].map((p, i, all) => (i === all.length - 1 ? load(p).catch(() => load('pipeline/write-batch.js')) : load(p))),
  );
  const config = loadConfig({ cwd: path.dirname(fileURLToPath(import.meta.url)), env: {} });
  const modules = {
    decodeProtobuf,
    builtinDialects,
    Pipeline,
    Ledger,
    SqliteStore,
    migrateSqlite,
    SqliteSql,
    ToolRegistry,
    SchemaCache,
    LabelCap,
    createMetrics,
    TrajectoryTracker,
    storedName,
  };
  return { load, config, redactor: storeRedactor(config.store.redactArguments), ...modules };
}

/**
 * A Pipeline at the build's default config over `store`, with `extra` (its `counted` or `sinks`)
 * and the steady clock `clock.steadyMs`, which the caller moves as batches go by.
 */
export function defaultPipeline(build, { store, clock, ...extra }) {
  const { config } = build;
  return new build.Pipeline({
    dialects: build.builtinDialects(),
    registry: new build.ToolRegistry(),
    schemas: new build.SchemaCache(),
    check: config.check,
    ledger: new build.Ledger(config.dedupe),
    store,
    metrics: build.createMetrics(),
    labels: new build.LabelCap(config.metrics.maxLabelValues),
    failuresPerToolPerMinute: config.store.failuresPerToolPerMinute,
    redactor: build.redactor,
    executionGraceMs: config.dedupe.executionGraceMs,
    statusGraceMs: 0,
    trajectories: new build.TrajectoryTracker(config.trajectories, build.storedName),
    now: Date.now,
    steady: () => clock.steadyMs,
    ...extra,
    toolErrorRules: config.problems.toolErrorRules,
  });
}
