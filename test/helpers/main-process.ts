/**
 * toolwatch as a real process: src/main.ts bundled by esbuild (packages external, so Node loads them
 * from node_modules as it would from dist/) under .test-build/, two levels below the root so the
 * judge's prompt is found as from dist/judge/. For what only a process shows: exit codes, signals.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

export interface BuiltMain {
  file: string;
  remove(): void;
}

/**
 * `entry`: src/main.ts by default, or another module that starts itself (its file is still main.js).
 * Not src/cli.ts: bundled with main.ts, main.ts's own entry check would start the service as well.
 */
export async function buildMain(entry = 'src/main.ts'): Promise<BuiltMain> {
  const out = path.join(process.cwd(), '.test-build', `main-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: { main: entry },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir: out,
    logLevel: 'silent',
  });
  return { file: path.join(out, 'main.js'), remove: () => rmSync(out, { recursive: true, force: true }) };
}

export interface MainProcess {
  child: ChildProcess;
  /** Everything it wrote so far (stdout + stderr). */
  output(): string;
  /** Resolves with the first match of `re` in the output (waiting for it to appear). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
  stop(): Promise<void>;
}

const alive = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of alive) c.kill('SIGKILL');
});

export function startMain(
  file: string,
  opts: { env: Record<string, string>; cwd: string; args?: string[] },
): MainProcess {
  const child = spawn(process.execPath, [file, ...(opts.args ?? [])], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  alive.add(child);
  let out = '';
  const waiters: (() => void)[] = [];
  const keep = (b: Buffer) => {
    out += b.toString('utf8');
    for (const w of waiters.splice(0)) w();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      alive.delete(child);
      resolve(code ?? signal ?? 'unknown');
      for (const w of waiters.splice(0)) w();
    }),
  );
  const waitFor = async (re: RegExp, timeoutMs = 20_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const m = out.match(re);
      if (m) return m;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`process exited before ${re}:\n${out}`);
      if (Date.now() > until) throw new Error(`timed out waiting for ${re}:\n${out}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 200);
      });
    }
  };
  return {
    child,
    output: () => out,
    waitFor,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      }
    },
  };
}
