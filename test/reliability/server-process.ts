/**
 * toolwatch as a real child process for the reliability probes: built once per test run (tsc into
 * .test-build/reliability, shared by the test files through a lock — not under node_modules, which
 * checkouts beside each other may share through a link, so one checkout's run would start another's
 * build), started as `npm start` starts it,
 * killed with SIGKILL or stopped with SIGTERM like an orchestrator would.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(ROOT, '.test-build/reliability');
const LOCK = `${OUT}.lock`;

/** Compiles src/ once per run (incremental); parallel test files wait for the one that builds. */
export async function buildOnce(): Promise<string> {
  const main = path.join(OUT, 'main.js');
  const stamp = path.join(OUT, '.built-by');
  const run = String(process.ppid);
  for (;;) {
    if (existsSync(stamp) && readFileSync(stamp, 'utf8') === run) return main;
    mkdirSync(path.dirname(LOCK), { recursive: true });
    try {
      mkdirSync(LOCK);
    } catch {
      // Another file builds; a lock older than two minutes is a leftover.
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    try {
      if (existsSync(stamp) && readFileSync(stamp, 'utf8') === run) return main;
      const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
      const res = spawnSync(
        process.execPath,
        [tsc, '-p', 'tsconfig.build.json', '--outDir', OUT, '--tsBuildInfoFile', path.join(OUT, '.tsbuildinfo')],
        { cwd: ROOT, encoding: 'utf8' },
      );
      if (res.status !== 0) throw new Error(`tsc failed: ${res.stdout}${res.stderr}`);
      // Files tsc does not copy, found beside the compiled code as in dist/.
      cpSync(path.join(ROOT, 'src/judge/prompts'), path.join(OUT, 'judge/prompts'), {
        recursive: true,
        filter: (f) => !f.endsWith('.ts'),
      });
      writeFileSync(stamp, run);
      return main;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}

export { freePort } from '../global-setup.js';

/**
 * Writes the probes' config file: the store, and a label cap above any number of batches a probe
 * sends — the audit reads each batch's own tool name back from the store's per-tool counts, and
 * past the cap those are stored as `_other` (labels are derived once, for metric and row alike).
 */
export function writeConfig(file: string, databaseUrl: string, extraYaml = ''): void {
  const yaml = `database_url: ${JSON.stringify(databaseUrl)}\nmetrics:\n  max_label_values: 1000000\n`;
  writeFileSync(file, yaml + extraYaml);
}

export interface ServerProcess {
  url: string;
  pid: number;
  /** What the process wrote to stderr (its crash, if it crashed). */
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
  /** Resident memory in MiB (Linux /proc). */
  rssMiB(): number;
}

export interface StartOptions {
  configFile: string;
  port: number;
  env?: Record<string, string>;
}

/** `npm start`'s leading `NAME=value` words (the allocator's settings) and its node flags. */
function startCommand(): { env: Record<string, string>; flags: string[] } {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/).filter(Boolean);
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!); i++) {
    const eq = words[i]!.indexOf('=');
    env[words[i]!.slice(0, eq)] = words[i]!.slice(eq + 1);
  }
  return { env, flags: words.slice(i).filter((w) => w.startsWith('--')) };
}

export async function startServer(opts: StartOptions): Promise<ServerProcess> {
  const main = await buildOnce();
  const start = startCommand();
  const child: ChildProcess = spawn(process.execPath, [...start.flags, main, '--config', opts.configFile], {
    cwd: path.dirname(opts.configFile),
    env: {
      ...start.env,
      PATH: process.env.PATH ?? '',
      PORT: String(opts.port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...opts.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-20_000)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${opts.port}`;
  const deadline = Date.now() + 20_000;
  let done = false;
  void exited.then(() => (done = true));
  for (;;) {
    if (done) throw new Error(`toolwatch exited during start-up:\n${err}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`toolwatch did not start within 20 s:\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid!,
    stderr: () => err,
    exited,
    kill: (signal) => child.kill(signal),
    rssMiB() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    },
  };
}
