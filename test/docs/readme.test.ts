/**
 * The README and docs/ are the contract: every metric, endpoint, config key, environment variable, CLI command,
 * rule and notifier kind, documented label value and eval report field is documented there under
 * the name the code uses — and nothing the code no longer has is. Every name is read from the code
 * (a real metrics registry and services built with every feature on, the routes the app registers,
 * the config file's JSON Schema, the kinds registries, the variables the loader reads, the CLI's
 * usage and option tables, a report the scorer builds), never from a list kept here. A failure
 * lists every missing name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USAGE } from '../../src/cli.js';
import { CONFIG_ENV, fileSchema, loadConfigDetailed } from '../../src/config.js';
import {
  ARGS_MODES,
  ARGS_SPEC_KEYS,
  CONSTRAINT_KEYS,
  EXPECTED_KINDS,
  TRAJECTORY_KEYS,
  TRAJECTORY_MODES,
  VALUE_MODES,
} from '../../src/eval/case-expected.js';
import { CASE_KEYS } from '../../src/eval/cases.js';
import { EVAL_OPTIONS, EVAL_USAGE } from '../../src/eval/cli.js';
import { DEFAULT_GATES, GATE_NAMES } from '../../src/eval/gates.js';
import type { ResultRecord } from '../../src/eval/records.js';
import { buildReport } from '../../src/eval/report.js';
import { apiKeyFor } from '../../src/eval/runner.js';
import { loadSuite, suiteSchema } from '../../src/eval/suite.js';
import { builtinKinds } from '../../src/kinds.js';
import { createMetrics, INGEST_REJECT_REASONS } from '../../src/metrics/registry.js';
import { UNVALIDATED_REASONS } from '../../src/model.js';
import { EXPORT_OPTIONS, EXPORT_USAGE } from '../../src/replay/cli.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { registeredRoutes } from '../helpers/routes.js';
import { allCode, codeSpans, identifiers, options, section, tablesWithHeader, type TableRow } from './markdown.js';

const REPO = path.resolve(import.meta.dirname, '../..');
/**
 * The contract is the README and the reference pages under docs/, read as one text (each page keeps
 * its own headings, so a section is found wherever it lives).
 */
const DOCS = path.join(REPO, 'docs');
const README = [
  path.join(REPO, 'README.md'),
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => path.join(DOCS, f)),
]
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n\n');

/** Asserts nothing is missing; the message lists every missing name, one a line. */
function expectNone(missing: string[], what: string): void {
  expect(missing, `${what}:\n  ${missing.join('\n  ')}\n`).toEqual([]);
}

/** Rows of tables with this header whose first cell names `name` as a code span. */
function rowsNaming(header: string[], name: string): TableRow[] {
  return tablesWithHeader(README, header).flatMap((t) =>
    t.rows.filter((r) => codeSpans(r.cells[0] ?? '').includes(name)),
  );
}

/** A schema default as the README writes it in a `default` cell. */
function shown(value: unknown): string {
  if (value === '') return '""';
  if (Array.isArray(value)) return `[${value.map(String).join(', ')}]`;
  if (value && typeof value === 'object') return Object.keys(value).length ? JSON.stringify(value) : '{}';
  return String(value);
}

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  default?: unknown;
};

interface Key {
  path: string;
  default?: { value: unknown };
  /** A key of the objects in an array (`alerts.notifiers[].url`): parent is the array's path. */
  item?: { parent: string; key: string };
}

/**
 * Every key of a config-file schema as a dotted path: objects with properties are walked, arrays of
 * objects give `path[].key` for their items' keys; `leaves` are paths documented as one key.
 */
function schemaKeys(schema: Schema, leaves: ReadonlySet<string> = new Set(), prefix = ''): Key[] {
  const out: Key[] = [];
  for (const [k, child] of Object.entries(schema.properties ?? {})) {
    const p = prefix ? `${prefix}.${k}` : k;
    if (!leaves.has(p) && child.type === 'object' && child.properties) {
      out.push(...schemaKeys(child, leaves, p));
      continue;
    }
    out.push({ path: p, ...('default' in child ? { default: { value: child.default } } : {}) });
    if (!leaves.has(p) && child.type === 'array' && child.items?.properties)
      for (const key of Object.keys(child.items.properties))
        out.push({ path: `${p}[].${key}`, item: { parent: p, key } });
  }
  return out;
}

/**
 * Checks keys against the README's key tables (`header`): each key is the first cell of a row (an
 * array item's key may instead be named in its array's row, `[{name, url?}]`), and a schema default
 * is in the row's default cell. Returns what is missing or wrong.
 */
function undocumentedKeys(keys: Key[], header: string[], leaves: ReadonlySet<string> = new Set()): string[] {
  const missing: string[] = [];
  for (const k of keys) {
    const rows = rowsNaming(header, k.path);
    if (k.item && !rows.length) {
      const parent = rowsNaming(header, k.item.parent);
      if (parent.some((r) => r.cells.some((c) => codeSpans(c).some((s) => identifiers(s).includes(k.item!.key)))))
        continue;
      missing.push(`${k.path} (no row, and not named in the row of ${k.item.parent})`);
      continue;
    }
    if (!rows.length) {
      missing.push(`${k.path} (no row)`);
      continue;
    }
    if (k.default && !leaves.has(k.path)) {
      const want = shown(k.default.value);
      if (!rows.some((r) => codeSpans(r.cells[1] ?? '').includes(want)))
        missing.push(`${k.path}: default \`${want}\` not in its row's default cell`);
    }
  }
  return missing;
}

/** First-cell code spans of the key tables that look like keys but are none (the README's leftovers). */
function unknownKeys(keys: Key[], header: string[]): string[] {
  const known = new Set<string>();
  for (const k of keys) {
    const parts = k.path.split('.');
    for (let i = 1; i <= parts.length; i++) known.add(parts.slice(0, i).join('.'));
  }
  return tablesWithHeader(README, header)
    .flatMap((t) => t.rows.flatMap((r) => codeSpans(r.cells[0] ?? '')))
    .filter((s) => /^[a-z_][a-z0-9_]*(\.[a-z0-9_]+|\[\]\.[a-z0-9_]+)*$/.test(s) && !known.has(s));
}

describe('README documents what the code has', () => {
  let tw: Harness;

  beforeAll(async () => {
    // Every optional part on, so whatever registers metrics or routes only when enabled does.
    tw = await startToolwatch({
      listen: false,
      env: { LANGFUSE_PUBLIC_KEY: 'pk-lf-docs', LANGFUSE_SECRET_KEY: 'sk-lf-docs' },
      config: {
        server: { host: '127.0.0.1', port: 0, cors_origins: ['https://app.example.test'] },
        judge: { enabled: true, model: 'docs-judge', base_url: 'http://127.0.0.1:9/v1' },
        langfuse: { enabled: true, base_url: 'http://127.0.0.1:9', write_scores: true },
      },
    });
  });
  afterAll(async () => {
    await tw?.close();
  });

  const METRIC_TABLE = ['metric', 'labels', 'meaning'];

  it('every metric, with its labels, in a metrics table; no table row names a metric that is gone', () => {
    const metrics = new Map<string, string[]>();
    for (const registry of [createMetrics().registry, tw.services.metrics.registry])
      for (const m of registry.getMetricsAsArray())
        metrics.set(m.name, [...((m as unknown as { labelNames?: string[] }).labelNames ?? [])].sort());
    expect(metrics.size).toBeGreaterThan(30);
    const missing: string[] = [];
    for (const [name, labels] of metrics) {
      const family = /^(process|nodejs)_/.exec(name);
      if (family) {
        if (!rowsNaming(METRIC_TABLE, `${family[1]}_*`).length) missing.push(`${family[1]}_* (for ${name})`);
        continue;
      }
      const rows = rowsNaming(METRIC_TABLE, name);
      if (!rows.length) {
        missing.push(`${name} (no row)`);
        continue;
      }
      const documented = codeSpans(rows[0]!.cells[1] ?? '').sort();
      if (JSON.stringify(documented) !== JSON.stringify(labels))
        missing.push(
          `${name}: labels ${labels.join(', ') || '(none)'}, README says ${documented.join(', ') || '(none)'}`,
        );
    }
    const stale = tablesWithHeader(README, METRIC_TABLE)
      .flatMap((t) => t.rows.flatMap((r) => codeSpans(r.cells[0] ?? '')))
      .filter((n) => !n.endsWith('_*') && !metrics.has(n))
      .map((n) => `${n} (in the README, not registered)`);
    expectNone([...missing, ...stale], 'metrics undocumented or documented wrongly');
  });

  it('the reason values of toolwatch_ingest_rejected_total and toolwatch_unvalidated_calls_total, exactly', () => {
    const missing: string[] = [];
    for (const [metric, reasons] of [
      ['toolwatch_ingest_rejected_total', INGEST_REJECT_REASONS],
      ['toolwatch_unvalidated_calls_total', UNVALIDATED_REASONS],
    ] as const) {
      const row = rowsNaming(METRIC_TABLE, metric)[0];
      const documented = new Set(codeSpans(row?.cells[2] ?? ''));
      for (const r of reasons) if (!documented.has(r)) missing.push(`${metric} reason ${r}`);
      for (const d of documented)
        if (!(reasons as readonly string[]).includes(d)) missing.push(`${metric}: README names ${d}, not a reason`);
    }
    expectNone(missing, 'reason values undocumented or stale');
  });

  it('every route the app registers (method and path) in an endpoint table, and no route that is gone', () => {
    const routes = registeredRoutes(tw.app);
    for (const r of routes) expect(tw.app.hasRoute({ method: r.method as 'GET', url: r.path }), r.path).toBe(true);
    const gets = new Set(routes.filter((r) => r.method === 'GET').map((r) => r.path));
    // Fastify answers HEAD for every GET (README, HTTP endpoints).
    const names = routes.filter((r) => !(r.method === 'HEAD' && gets.has(r.path))).map((r) => `${r.method} ${r.path}`);
    expect(names.length).toBeGreaterThan(10);
    const documented = tablesWithHeader(README, ['endpoint', 'what']).flatMap((t) =>
      t.rows.flatMap((r) => codeSpans(r.cells[0] ?? '')),
    );
    const missing = names.filter((n) => !documented.includes(n)).map((n) => `${n} (no endpoint row)`);
    const stale = documented.filter((d) => !names.includes(d)).map((d) => `${d} (in the README, not registered)`);
    expectNone([...missing, ...stale], 'endpoints undocumented or stale');
  });

  const KEY_TABLE = ['key', 'default', 'meaning'];

  it('every config file key, by its dotted path, with its default, in a key table; no key that is gone', () => {
    const keys = schemaKeys(fileSchema as unknown as Schema);
    expect(keys.length).toBeGreaterThan(80);
    expectNone(
      [...undocumentedKeys(keys, KEY_TABLE), ...unknownKeys(keys, KEY_TABLE).map((k) => `${k} (not a key)`)],
      'config keys undocumented or stale',
    );
  });

  it('every alert rule kind with each of its keys and their defaults; no kind that is gone', () => {
    const header = ['kind', 'fires when', 'keys (default)'];
    const rules = builtinKinds().rules;
    const missing: string[] = [];
    for (const name of rules.list()) {
      const row = rowsNaming(header, name)[0];
      if (!row) {
        missing.push(`${name} (no row)`);
        continue;
      }
      const text = row.cells[2] ?? '';
      const spans = codeSpans(text);
      const schema = rules.get(name)!.schema as Schema;
      for (const [key, s] of Object.entries(schema.properties ?? {})) {
        if (!spans.includes(key)) missing.push(`${name}: key ${key}`);
        else if ('default' in s && !text.replace(/\\\|/g, '|').includes(`\`${key}\` (\`${shown(s.default)}\``))
          missing.push(`${name}: ${key}'s default \`${shown(s.default)}\``);
      }
    }
    const stale = tablesWithHeader(README, header)
      .flatMap((t) => t.rows.flatMap((r) => codeSpans(r.cells[0] ?? '')))
      .filter((k) => !rules.get(k))
      .map((k) => `${k} (in the README, not registered)`);
    expectNone([...missing, ...stale], 'rule kinds undocumented or stale');
  });

  it('every notifier kind has its entry under Notifiers, naming its own keys; no kind that is gone', () => {
    const notifiers = builtinKinds().notifiers;
    // An entry is a list item `- \`kind\` — …` and its indented continuation lines.
    const blocks = new Map<string, string[]>();
    let current: string[] | undefined;
    for (const line of section(README, 'Notifiers').text.split('\n')) {
      const m = /^- `([a-z_]+)` —/.exec(line);
      if (m) blocks.set(m[1]!, (current = [line]));
      else if (current && line.startsWith('  ')) current.push(line);
      else current = undefined;
    }
    const missing: string[] = [];
    for (const name of notifiers.list()) {
      const block = blocks.get(name);
      if (block === undefined) {
        missing.push(`${name} (no "- \`${name}\` —" entry)`);
        continue;
      }
      const spans = codeSpans(block.join('\n'));
      for (const key of Object.keys(notifiers.get(name)!.schema.properties))
        if (!spans.includes(key)) missing.push(`${name}: key ${key}`);
    }
    for (const name of blocks.keys()) if (!notifiers.get(name)) missing.push(`${name} (in the README, not registered)`);
    expectNone(missing, 'notifier kinds undocumented or stale');
  });

  it('every environment variable the config loader and the eval runner read, in a variable table', () => {
    const read = new Set<string>(CONFIG_ENV);
    const recorder = new Proxy({} as Record<string, string | undefined>, {
      get(_t, k) {
        if (typeof k === 'string') read.add(k);
        return undefined;
      },
    });
    // No config file and no tokens (a token_env names a variable of the user's choosing).
    loadConfigDetailed({ cwd: tw.dir, env: recorder, overrides: { database_url: path.join(tw.dir, 'env.db') } });
    apiKeyFor({ provider: 'openai', model: 'm', label: 'openai/m' }, recorder);
    const vars = [...read].filter((v) => /^[A-Z][A-Z0-9_]*$/.test(v));
    expect(vars).toContain('EVAL_API_KEY');
    const header = ['variable', 'overrides', 'meaning'];
    const missing = vars.filter((v) => !rowsNaming(header, v).length).map((v) => `${v} (no row)`);
    const stale = tablesWithHeader(README, header)
      .flatMap((t) => t.rows.filter((r) => !/^(other|any)\b/.test(r.cells[0] ?? '')))
      .flatMap((r) => codeSpans(r.cells[0] ?? ''))
      .filter((v) => /^[A-Z][A-Z0-9_]*$/.test(v) && !read.has(v))
      .map((v) => `${v} (in the README, read by nothing)`);
    expectNone([...missing, ...stale], 'environment variables undocumented or stale');
  });

  /** `toolwatch …` commands and their options, from usage text (`a | b` alternatives expanded). */
  function commandsOf(usage: string): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    let last: Set<string> | undefined;
    for (const raw of usage.replace(/^usage:/, '').split('\n')) {
      for (const segment of raw.split('(')) {
        const words = segment.replace(/[()]/g, ' ').trim().split(/\s+/);
        if (words[0] !== 'toolwatch') {
          for (const o of options(segment)) last?.add(o);
          continue;
        }
        const command: string[] = ['toolwatch'];
        const alternatives: string[][] = [];
        for (let i = 1; i < words.length && /^([a-z][a-z-]*|\|)$/.test(words[i]!); i++) {
          if (words[i] === '|') alternatives.push([...command.slice(0, -1), words[++i]!]);
          else command.push(words[i]!);
        }
        for (const c of [command, ...alternatives]) {
          const name = c.join(' ');
          if (!out.has(name)) out.set(name, new Set());
          last = out.get(name)!;
          for (const o of options(segment)) last.add(o);
        }
      }
    }
    return out;
  }

  it('every CLI command and subcommand, and every option, in the README; none that is gone', () => {
    const commands = new Map([...commandsOf(USAGE), ...commandsOf(EVAL_USAGE), ...commandsOf(EXPORT_USAGE)]);
    expect([...commands.keys()]).toContain('toolwatch eval run');
    const code = allCode(README).map((c) => ` ${c} `);
    const documentedOptions = new Set(code.flatMap(options));
    const missing: string[] = [];
    for (const [command, opts] of commands) {
      if (!code.some((c) => c.includes(` ${command} `))) missing.push(`${command} (never written out)`);
      for (const o of opts) if (!documentedOptions.has(o)) missing.push(`${command} ${o}`);
    }
    // Each eval subcommand's options in its row of the commands table, export's in its option table.
    const table = (header: string[]) => tablesWithHeader(README, header).flatMap((t) => t.rows);
    for (const [sub, opts] of Object.entries(EVAL_OPTIONS)) {
      const row = table(['command', 'options']).find((r) => codeSpans(r.cells[0] ?? '').includes(sub));
      if (!row) missing.push(`toolwatch eval ${sub} (no row in the command table)`);
      const listed = new Set(codeSpans(row?.cells[1] ?? '').flatMap(options));
      for (const o of Object.keys(opts))
        if (!listed.has(`--${o}`)) missing.push(`toolwatch eval ${sub} --${o} (not in its row)`);
    }
    const exportListed = new Set(table(['option', '']).flatMap((r) => codeSpans(r.cells[0] ?? '').flatMap(options)));
    for (const o of Object.keys(EXPORT_OPTIONS))
      if (!exportListed.has(`--${o}`)) missing.push(`toolwatch eval export --${o} (not in the option table)`);
    // And nothing the CLI does not have: a subcommand written out, an option in those tables.
    for (const c of code)
      for (const m of c.matchAll(/(?<![\w-])toolwatch (eval|labels|config|judge) ([a-z][a-z-]*)/g))
        if (!commands.has(m[0])) missing.push(`${m[0]} (in the README, not a command)`);
    const takes = (sub: string): string[] =>
      Object.keys(sub === 'export' ? EXPORT_OPTIONS : (EVAL_OPTIONS[sub as keyof typeof EVAL_OPTIONS] ?? {}));
    for (const r of table(['command', 'options'])) {
      const sub = codeSpans(r.cells[0] ?? '')[0] ?? '';
      for (const o of codeSpans(r.cells[1] ?? '').flatMap(options))
        if (!takes(sub).includes(o.slice(2))) missing.push(`toolwatch eval ${sub} ${o} (in the README, not an option)`);
    }
    for (const o of exportListed)
      if (!(o.slice(2) in EXPORT_OPTIONS)) missing.push(`toolwatch eval export ${o} (in the README, not an option)`);
    expectNone(missing, 'CLI commands or options undocumented or stale');
  });

  it("the usage text names every option each command's parser takes", () => {
    const missing: string[] = [];
    const usage = [...commandsOf(EVAL_USAGE), ...commandsOf(EXPORT_USAGE)];
    const of = (command: string) => usage.find(([c]) => c === command)?.[1] ?? new Set<string>();
    for (const [sub, opts] of Object.entries(EVAL_OPTIONS))
      for (const o of Object.keys(opts))
        if (!of(`toolwatch eval ${sub}`).has(`--${o}`)) missing.push(`eval ${sub} --${o}`);
    for (const o of Object.keys(EXPORT_OPTIONS))
      if (!of('toolwatch eval export').has(`--${o}`)) missing.push(`eval export --${o}`);
    expectNone(missing, 'options missing from the usage text');
  });

  it('every suite.yaml key with its default, every gate with its default, every key and word of a case', () => {
    const leaves = new Set(['gates']);
    const keys = schemaKeys(suiteSchema as unknown as Schema, leaves);
    const header = ['suite.yaml key', 'default', 'meaning'];
    const missing = [
      ...undocumentedKeys(keys, header, leaves),
      ...unknownKeys(keys, header).map((k) => `${k} (not a key)`),
    ];
    const gates = section(README, 'Gates').text;
    const gateSpans = codeSpans(gates);
    for (const g of [...GATE_NAMES, 'max_drop_pp']) if (!gateSpans.includes(g)) missing.push(`gate ${g}`);
    for (const [g, v] of Object.entries(DEFAULT_GATES))
      if (!gateSpans.some((x) => x.startsWith(`${g}: `) && Number(x.slice(g.length + 2)) === v))
        missing.push(`gate ${g}'s default \`${g}: ${v}\``);
    const cases = new Set(codeSpans(section(README, 'Case formats').text).flatMap(identifiers));
    const caseWords = {
      'case key': [...CASE_KEYS],
      'expected kind': EXPECTED_KINDS,
      'arguments spec key': [...ARGS_SPEC_KEYS],
      constraint: CONSTRAINT_KEYS,
      'match_mode value': VALUE_MODES,
      'expected_trajectory key': [...TRAJECTORY_KEYS],
      'trajectory match mode': TRAJECTORY_MODES,
      'tool_args_match_mode value': ARGS_MODES,
    };
    for (const [what, words] of Object.entries(caseWords))
      for (const w of words) if (!cases.has(w)) missing.push(`${what} ${w}`);
    expectNone(missing, 'suite.yaml keys, gates or case keys undocumented');
  });

  it('every field of report.json in Scoring and Gates', () => {
    const suite = loadSuite(path.join(REPO, 'config/eval/shop'));
    const result: ResultRecord = {
      type: 'result',
      runId: 'docs',
      datasetVersion: suite.settings.datasetVersion,
      suite: suite.name,
      variant: 'core',
      provider: 'openai',
      model: 'm',
      label: 'openai/m',
      caseId: suite.cases[0]!.id,
      repeat: 1,
      startedAt: new Date(0).toISOString(),
      status: 'provider_error',
      error: { code: 'server', message: 'down', status: 503 },
      outcome: { kind: 'provider_error', code: 'server', message: 'down', status: 503 },
      turns: [],
      latencyMs: 1,
      usage: { inputTokens: 0, outputTokens: 0 },
      attempts: 1,
    };
    const report = buildReport(suite, [result], []);
    const fields = new Set<string>();
    // Maps whose keys are data (labels, tags, error codes), not fields; the top-level gates are suite.yaml's.
    const maps = new Set(['confusion', 'byTag', 'byCode']);
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          fields.add(k);
          if (!maps.has(k)) walk(x);
        }
    };
    walk({ ...report, gates: undefined });
    expect(fields).toContain('exactMatchRate');
    const documented = new Set(
      [section(README, 'Scoring (report.json)').text, section(README, 'Gates').text].flatMap((t) =>
        codeSpans(t).flatMap(identifiers),
      ),
    );
    expectNone(
      [...fields].filter((f) => !documented.has(f)),
      'report.json fields undocumented in Scoring (report.json) / Gates',
    );
  });
});
