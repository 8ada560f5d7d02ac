/**
 * The layers are a DAG and this test keeps them one: every import in src/ points to its own layer
 * or one below (the order is README.md's Architecture table, held as data in import-graph.ts), no
 * two top-level rooms import each other round a cycle, and every room has a place in the table.
 * It prints the counts the architecture is tracked by — upward imports, room cycles, files over
 * 400 lines — so a change that moves them shows in the run.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { section, tablesWithHeader } from '../docs/markdown.js';
import {
  arrowsWithin,
  LAYERS,
  layerOf,
  longFiles,
  reaching,
  readImportGraph,
  roomCycles,
  roomEdges,
  roomOf,
  specifiersOf,
  unplacedRooms,
  upwardArrows,
} from './import-graph.js';

const SRC = path.resolve(import.meta.dirname, '../../src');
const graph = readImportGraph(SRC);
const upward = upwardArrows(graph);
const rooms = roomEdges(graph);
const cycles = roomCycles(rooms);
const roomArrows = [...rooms.values()].reduce((n, out) => n + out.size, 0);
const long = longFiles(SRC, graph.files, 400);

console.log(
  `architecture: ${graph.files.length} files, ${graph.arrows.length} imports, ${rooms.size} rooms, ` +
    `${roomArrows} room arrows; ` +
    `${upward.length} upward imports, ${cycles.length} room cycles` +
    (cycles.length ? ` (${cycles.map((c) => c.length).join(', ')} rooms)` : '') +
    `, ${long.length} files over 400 lines` +
    (long.length ? ` (${long.map((f) => `${f.file} ${f.lines}`).join(', ')})` : ''),
);

const name = (i: number | undefined) => (i === undefined ? '?' : LAYERS[i]!.name);

describe('the import graph', () => {
  it('is read from every form of import', () => {
    const text = [
      "import a from './a.js';",
      "import type { B } from './b.js';",
      "import { type C } from './c.js';",
      "export { d } from './d.js';",
      "export type { E } from './e.js';",
      "export * from './f.js';",
      "const g = await import('./g.js');",
      "type H = import('./h.js').H;",
      "declare module './i.js' { interface I { x: number } }",
      "import 'node:fs';",
    ].join('\n');
    expect(specifiersOf('x.ts', text)).toEqual([
      './a.js',
      './b.js',
      './c.js',
      './d.js',
      './e.js',
      './f.js',
      './g.js',
      './h.js',
      './i.js',
      'node:fs',
    ]);
  });

  it('sees the files and their imports', () => {
    expect(graph.files).toContain('model.ts');
    expect(graph.files).toContain('store/open.ts');
    // a dynamic import counts: store/open.ts loads its engines with import()
    expect(graph.arrows).toContainEqual({ from: 'store/open.ts', to: 'store/sqlite.ts' });
  });
});

describe('layers', () => {
  it('are the table in docs/architecture.md', () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, '../../docs/architecture.md'), 'utf8');
    const [table] = tablesWithHeader(section(readme, 'Architecture').text, ['layer', 'folders']);
    const documented = (table?.rows ?? []).map((r) => ({
      name: r.cells[0],
      rooms: (r.cells[1] ?? '').split(',').map((c) => c.trim().replace(/^`|`$/g, '').replace(/\/$/, '')),
    }));
    expect(documented).toEqual(LAYERS.map((l) => ({ name: l.name, rooms: [...l.rooms] })));
  });

  it('place every room of src/', () => {
    expect(unplacedRooms(graph), 'rooms missing from the layer table in import-graph.ts and README').toEqual([]);
  });

  it('are only ever imported downward', () => {
    const lines = upward.map(
      (a) => `${a.from} → ${a.to}  (${name(layerOf(roomOf(a.from)))} → ${name(layerOf(roomOf(a.to)))})`,
    );
    expect(lines, `imports from a lower layer to a higher one:\n${lines.join('\n')}`).toEqual([]);
  });

  it('keep Fastify at the edges: below them only the auth hook reaches it, directly or through an import', () => {
    const edges = LAYERS.findIndex((l) => l.name === 'edges');
    const lines = [...reaching(graph, 'fastify')]
      .filter(([file]) => (layerOf(roomOf(file)) ?? edges) < edges && file !== 'auth/hook.ts')
      .map(([, chain]) => chain.join(' → '))
      .sort();
    expect(lines, `files below the edges that reach Fastify:\n${lines.join('\n')}`).toEqual([]);
  });

  it('have no cycle between rooms', () => {
    const lines = cycles.map(
      (c) =>
        `{${c.join(', ')}}: ` +
        arrowsWithin(graph, c)
          .map((a) => `${a.from} → ${a.to}`)
          .join('; '),
    );
    expect(lines, `rooms that import each other round a cycle:\n${lines.join('\n')}`).toEqual([]);
  });
});
