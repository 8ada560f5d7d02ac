/**
 * Bundles entry points of src/ with esbuild for tests that must run toolwatch in a child process
 * (its own process environment, its own globals, a real exit): ESM, dynamic imports kept as
 * separate chunks, packages external (loaded from node_modules as from dist/). The output lives
 * under the project, two levels down, so bare imports resolve from node_modules and the judge's
 * prompt is found at ../../src/judge/prompts as from dist/judge/.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

export interface Bundle {
  dir: string;
  remove(): void;
}

export async function bundle(name: string, entryPoints: Record<string, string>): Promise<Bundle> {
  const dir = path.join(process.cwd(), '.test-build', `${name}-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  await build({
    entryPoints,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir: dir,
    logLevel: 'silent',
  });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
