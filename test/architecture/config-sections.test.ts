/**
 * Config by section: every section lives in the folder whose settings it holds, under a key of its
 * own, and the loader composes them — the file's schema is exactly the sections' schemas, the
 * variables it reads are exactly the ones the sections name, and no file in src/ but the two entry
 * points (which hand process.env to the loader) touches process.env.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CONFIG_ENV, CONFIG_SECTIONS, fileSchema, loadConfigDetailed } from '../../src/config.js';
import { readImportGraph } from './import-graph.js';

const SRC = path.resolve(import.meta.dirname, '../../src');
const graph = readImportGraph(SRC);

/** Where a file's code (not its comments) reads `process.env`. */
function processEnvReads(file: string): number {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  let n = 0;
  const visit = (node: ts.Node): void => {
    if (
      ts.isPropertyAccessExpression(node) &&
      node.name.text === 'env' &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'process'
    )
      n++;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return n;
}

describe('config sections', () => {
  it('each under its own key, the file schema exactly their schemas', () => {
    const keys = CONFIG_SECTIONS.map((s) => s.section.key);
    expect(new Set(keys).size, `a key taken by two sections: ${keys.join(', ')}`).toBe(keys.length);
    expect(Object.keys(fileSchema.properties).sort()).toEqual([...keys].sort());
    for (const { section } of CONFIG_SECTIONS)
      expect(fileSchema.properties[section.key as keyof typeof fileSchema.properties]).toBe(section.schema);
  });

  it('each defined beside the settings it holds, not in config.ts', async () => {
    const home = new Map<unknown, string>();
    for (const file of graph.files) {
      const text = readFileSync(path.join(SRC, file), 'utf8');
      const names = [...text.matchAll(/export const (\w+Section)\b/g)].map((m) => m[1]!);
      if (!names.length) continue;
      const mod = (await import(path.join(SRC, file))) as Record<string, unknown>;
      for (const name of names) home.set(mod[name], file);
    }
    const where = CONFIG_SECTIONS.map(({ field, section }) => `${field}: ${home.get(section) ?? '(not exported)'}`);
    expect(where.filter((w) => w.endsWith(': config.ts') || w.endsWith('(not exported)'))).toEqual([]);
    expect(where).toContain('logLevel: logger.ts');
    expect(where).toContain('database: store/config.ts');
  });

  it('the variables the loader reads are the ones the sections name', () => {
    const named = CONFIG_SECTIONS.flatMap((s) => [...(s.section.env?.names ?? [])]);
    expect([...CONFIG_ENV].sort()).toEqual(['TOOLWATCH_CONFIG', ...named].sort());
    const read = new Set<string>();
    const recorder = new Proxy({} as Record<string, string | undefined>, {
      get(_t, k) {
        if (typeof k === 'string') read.add(k);
        return undefined;
      },
    });
    loadConfigDetailed({ cwd: '/nonexistent', env: recorder, overrides: { database_url: ':memory:' } });
    // The telemetry section also checks two OTLP protocol variables whose wrong values the SDK ignores.
    const unnamed = [...read].filter((v) => /^[A-Z]/.test(v) && !CONFIG_ENV.includes(v) && !/^OTEL_/.test(v));
    expect(unnamed).toEqual([]);
  });

  it('and nothing in src/ but the entry points reads process.env', () => {
    const readers = graph.files.filter((f) => processEnvReads(f) > 0).sort();
    expect(readers).toEqual(['cli.ts', 'main.ts']);
  });
});
