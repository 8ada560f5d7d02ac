/** Shared by the eval tests: temp suites, a captured CLI, a recorded sleep. */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { runEvalCli, type EvalDeps } from '../../src/eval/cli.js';
import type { ResultRecord, RunRecord } from '../../src/eval/records.js';

export const REPO = path.resolve(import.meta.dirname, '../..');

export function tempDir(prefix = 'toolwatch-eval-'): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A copy of a shipped suite with suite.yaml keys replaced — only settings (timeouts, retries) so
 * the tests do not wait a minute for a hung server; tools, system prompt and cases stay as shipped.
 */
export function copySuite(name: string, into: string, patch: Record<string, unknown> = {}): string {
  const dest = path.join(into, name);
  cpSync(path.join(REPO, 'config/eval', name), dest, { recursive: true });
  const file = path.join(dest, 'suite.yaml');
  const doc = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, stringifyYaml({ ...doc, ...patch }));
  return dest;
}

/** A suite folder from parts (suite.yaml as an object, cases as objects). */
export function writeSuite(
  dir: string,
  parts: {
    suite: Record<string, unknown>;
    tools?: unknown;
    cases: unknown[] | string;
    system?: string;
    compat?: unknown;
  },
): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'suite.yaml'), stringifyYaml(parts.suite));
  if (parts.tools !== undefined) writeFileSync(path.join(dir, 'tools.json'), JSON.stringify(parts.tools, null, 2));
  if (parts.compat !== undefined)
    writeFileSync(path.join(dir, 'tools.compatibility.json'), JSON.stringify(parts.compat, null, 2));
  if (parts.system !== undefined) writeFileSync(path.join(dir, 'system.txt'), parts.system);
  const cases =
    typeof parts.cases === 'string' ? parts.cases : parts.cases.map((c) => JSON.stringify(c)).join('\n') + '\n';
  writeFileSync(path.join(dir, 'cases.jsonl'), cases);
  return dir;
}

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export async function evalCli(
  argv: string[],
  opts: { env?: Record<string, string>; deps?: EvalDeps; cwd?: string } = {},
): Promise<CliRun> {
  let out = '';
  let err = '';
  const code = await runEvalCli(
    argv,
    opts.env ?? {},
    { out: (s) => (out += s), err: (s) => (err += s), isTTY: false },
    { ...(opts.deps ?? {}), ...(opts.cwd ? { cwd: opts.cwd } : {}) },
  );
  return { code, out, err };
}

/** A sleep that returns at once and remembers what it was asked to wait. */
export function recordedSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

export function readJsonl(file: string): (RunRecord | ResultRecord)[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RunRecord | ResultRecord);
}

/** n/d as the report carries it, with the value rounded as the report rounds it. */
export const r = (n: number, d: number) => ({
  numerator: Math.round(n * 1e6) / 1e6,
  denominator: d,
  value: d ? Math.round((n / d) * 1e6) / 1e6 : null,
});
