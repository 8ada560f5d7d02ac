/**
 * The import graph of src/ as the layers test sees it. Every relative import is an arrow —
 * `import … from`, `export … from`, `import type`, dynamic `import('…')`, `import('…')` types and
 * `declare module '…'` augmentations alike, because a type import still ties the two rooms together
 * for whoever moves either one.
 * A room is the first path segment under src/ (`normalize`, `check`), a top-level file its own room;
 * the layer order below is the table in README.md's Architecture section (the test checks the two
 * agree), kept here as data so the test can hold the code to it. One change from the design's
 * table (../shared/design/architecture.md): alerts/ sits below the features whose rule kinds plug
 * into it, since they import it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Bottom to top: an import may point to its own layer or one below, never above. */
export const LAYERS: readonly { name: string; rooms: readonly string[] }[] = [
  { name: 'vocabulary', rooms: ['model.ts', 'util', 'logger.ts'] },
  { name: 'primitives', rooms: ['tools', 'redact', 'metrics', 'telemetry', 'delivery', 'jobs'] },
  { name: 'readers and checks', rooms: ['normalize', 'check', 'instrumentation'] },
  { name: 'state', rooms: ['store'] },
  // Below every feature that brings rule kinds (feedback, judge, and problems/changes to come): they
  // extend its RuleSources and import it, it never imports them.
  { name: 'rules over state', rooms: ['alerts'] },
  { name: 'counting', rooms: ['pipeline', 'efficiency', 'feedback', 'problems', 'changes'] },
  { name: 'features over state', rooms: ['judge', 'replay', 'eval'] },
  { name: 'reading', rooms: ['queries', 'auth'] },
  { name: 'edges', rooms: ['sources', 'api', 'ui', 'server'] },
  {
    name: 'composition',
    rooms: ['config.ts', 'config-check.ts', 'kinds.ts', 'services.ts', 'app.ts', 'main.ts', 'cli.ts', 'demo'],
  },
];

export interface Arrow {
  /** Paths relative to src/, with forward slashes. */
  from: string;
  to: string;
}

export interface ImportGraph {
  files: string[];
  arrows: Arrow[];
  /** The packages (bare specifiers: `fastify`, `node:fs`) each file imports. */
  packages: Map<string, Set<string>>;
}

/** The room a src-relative path lives in: its first folder, or the file itself at the top level. */
export function roomOf(file: string): string {
  const slash = file.indexOf('/');
  return slash === -1 ? file : file.slice(0, slash);
}

const layerIndex = new Map<string, number>(LAYERS.flatMap((layer, i) => layer.rooms.map((room) => [room, i])));

/** The layer's position (0 = bottom), or undefined for a room the table does not place. */
export function layerOf(room: string): number | undefined {
  return layerIndex.get(room);
}

/** The .ts files under `dir` (declarations aside), relative to it with forward slashes, sorted. */
export function listTs(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTs(full, base));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path.relative(base, full));
  }
  return out.map((p) => p.split(path.sep).join('/')).sort();
}

/** Every module specifier a file names, whatever the form of the import. */
export function specifiersOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expr = node.moduleReference.expression;
      if (ts.isStringLiteral(expr)) found.push(expr.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
      found.push(node.name.text);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) found.push(arg.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The specifiers of a file's imports and re-exports that stay in the JavaScript — what loading the
 * module loads: not `import type` or an import of types only (erased), not `import()` (it loads
 * when it runs), not `declare module` or `import('…')` types.
 */
export function valueSpecifiersOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      if (clause?.isTypeOnly) continue;
      // `import { type A, type B } from` is erased too; `import {} from` and `import 'x'` are not.
      const named = clause?.namedBindings;
      const onlyTypes =
        clause !== undefined &&
        clause.name === undefined &&
        named !== undefined &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly);
      if (!onlyTypes) out.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) out.push(node.moduleSpecifier.text);
    }
  }
  return out;
}

/** A relative specifier resolved to the src-relative .ts file it names (NodeNext: `./x.js` is `./x.ts`). */
export function resolveImport(fromFile: string, specifier: string, known: Set<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
  const candidates = [joined.replace(/\.js$/, '.ts'), joined, `${joined}.ts`, `${joined}/index.ts`];
  return candidates.find((c) => known.has(c)) ?? joined;
}

export function readImportGraph(srcDir: string): ImportGraph {
  const files = listTs(srcDir);
  const known = new Set(files);
  const arrows: Arrow[] = [];
  const packages = new Map<string, Set<string>>();
  for (const from of files) {
    const specifiers = specifiersOf(from, readFileSync(path.join(srcDir, from), 'utf8'));
    // A file that names a module twice (an import and a `declare module`) is one arrow.
    const targets = new Set(specifiers.map((s) => resolveImport(from, s, known)));
    for (const to of targets) if (to !== undefined) arrows.push({ from, to });
    packages.set(from, new Set(specifiers.filter((s) => !s.startsWith('.'))));
  }
  return { files, arrows, packages };
}

/**
 * Files that reach `pkg` — import it, or import (through any chain) a file that does — each with
 * the chain that gets there, `pkg` last.
 */
export function reaching(graph: ImportGraph, pkg: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [file, pkgs] of graph.packages) if (pkgs.has(pkg)) out.set(file, [file, pkg]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const { from, to } of graph.arrows) {
      const via = out.get(to);
      if (via && !out.has(from)) {
        out.set(from, [from, ...via]);
        changed = true;
      }
    }
  }
  return out;
}

/** Arrows whose target sits in a higher layer than their source. */
export function upwardArrows(graph: ImportGraph): Arrow[] {
  return graph.arrows.filter((a) => {
    const from = layerOf(roomOf(a.from));
    const to = layerOf(roomOf(a.to));
    return from !== undefined && to !== undefined && to > from;
  });
}

/** Rooms (top-level folders and files) the layer table does not place. */
export function unplacedRooms(graph: ImportGraph): string[] {
  return [...new Set(graph.files.map(roomOf))].filter((room) => layerOf(room) === undefined).sort();
}

/** The room graph: one edge per pair of distinct rooms with at least one import between them. */
export function roomEdges(graph: ImportGraph): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of graph.files) edges.set(roomOf(file), edges.get(roomOf(file)) ?? new Set());
  for (const { from, to } of graph.arrows) {
    const a = roomOf(from);
    const b = roomOf(to);
    if (a === b) continue;
    const out = edges.get(a) ?? new Set<string>();
    out.add(b);
    edges.set(a, out);
  }
  return edges;
}

/** Strongly connected components with more than one room (Tarjan), each sorted, largest first. */
export function roomCycles(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) connect(v);
  return components.sort((x, y) => y.length - x.length || x[0]!.localeCompare(y[0]!));
}

/** For one cycle, the room-to-room arrows inside it with one file import behind each, so a failure says where to cut. */
export function arrowsWithin(graph: ImportGraph, component: readonly string[]): Arrow[] {
  const members = new Set(component);
  const seen = new Set<string>();
  const out: Arrow[] = [];
  for (const a of graph.arrows) {
    const x = roomOf(a.from);
    const y = roomOf(a.to);
    if (x === y || !members.has(x) || !members.has(y) || seen.has(`${x}→${y}`)) continue;
    seen.add(`${x}→${y}`);
    out.push(a);
  }
  return out;
}

/** src files longer than `limit` lines, longest first. */
export function longFiles(srcDir: string, files: readonly string[], limit: number): { file: string; lines: number }[] {
  return files
    .map((file) => ({ file, lines: readFileSync(path.join(srcDir, file), 'utf8').split('\n').length - 1 }))
    .filter((f) => f.lines > limit)
    .sort((a, b) => b.lines - a.lines);
}
