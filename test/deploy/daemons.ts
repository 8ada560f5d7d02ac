/**
 * Real Prometheus and Alertmanager (Debian packages `prometheus`, `prometheus-alertmanager`) for the
 * tests: each on 127.0.0.1 and a free port, its data in a temp dir, stopped by its pid (SIGTERM,
 * then SIGKILL) — also when the test fails or the worker exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../global-setup.js';

export interface Daemon {
  url: string;
  dir: string;
  /** Everything the process wrote so far (stdout + stderr), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const alive = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

interface Spec {
  name: string;
  bin: string;
  args(port: number, dir: string): string[];
  /** Answers 200 once the server is ready. */
  readyPath: string;
}

async function startDaemon(spec: Spec): Promise<Daemon> {
  const dir = mkdtempSync(path.join(tmpdir(), `toolwatch-${spec.name}-`));
  let lastProblem = '';
  // A free port can be taken between our probe and the server's bind: try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const child = spawn(spec.bin, spec.args(port, dir), { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    alive.add(child);
    let out = '';
    const keep = (b: Buffer) => {
      out = (out + b.toString('utf8')).slice(-20_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const exited = new Promise<string>((resolve) => {
      child.once('error', (err) => resolve(`${spec.bin} could not be started: ${err.message}`));
      child.once('exit', (code, signal) => resolve(`${spec.bin} exited (${code ?? signal})`));
    });
    const url = `http://127.0.0.1:${port}`;
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(killer);
      }
      alive.delete(child);
    };
    const ready = await Promise.race([waitReady(`${url}${spec.readyPath}`), exited]);
    if (ready === true) {
      return {
        url,
        dir,
        output: () => out,
        async stop() {
          await stop();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await stop();
    lastProblem = `${typeof ready === 'string' ? ready : 'not ready in 20 s'}\n${out.split('\n').slice(-15).join('\n')}`;
    if (/could not be started/.test(lastProblem)) break;
  }
  rmSync(dir, { recursive: true, force: true });
  const pkg = spec.name === 'prometheus' ? 'prometheus' : 'prometheus-alertmanager';
  throw new Error(`${spec.name} did not start (Debian package ${pkg}; .ci/run installs it): ${lastProblem}`);
}

async function waitReady(url: string): Promise<true | undefined> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

/** `prometheus` with the given config file; its TSDB in the daemon's temp dir. */
export function startPrometheus(configFile: string): Promise<Daemon> {
  return startDaemon({
    name: 'prometheus',
    bin: 'prometheus',
    readyPath: '/-/ready',
    args: (port, dir) => [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
  });
}

/** `prometheus-alertmanager` with the given config file, clustering off (no 0.0.0.0:9094). */
export function startAlertmanager(configFile: string): Promise<Daemon> {
  return startDaemon({
    name: 'alertmanager',
    bin: 'prometheus-alertmanager',
    readyPath: '/-/ready',
    args: (port, dir) => [
      `--config.file=${configFile}`,
      `--storage.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
  });
}
