/**
 * What the service loads when it starts: the modules src/main.ts reaches through static imports that
 * stay in the JavaScript (`import type` and type-only names are erased, dynamic `import()` waits
 * until it runs). The SDKs of features that are off by default — the judge's and the eval's model
 * clients, Langfuse, the OpenTelemetry SDK, PostgreSQL's driver — are loaded only when configured:
 * each costs several MB of resident memory and start-up time (docs/performance-history.md), and one static
 * import anywhere on the path from main.ts would bring it back for every instance.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listTs, resolveImport, valueSpecifiersOf } from './import-graph.js';

const SRC = path.join(import.meta.dirname, '..', '..', 'src');
const known = new Set(listTs(SRC));

/** Every package main.ts loads at start, each with the chain of files that imports it. */
function packagesAtStart(entry: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const seen = new Set<string>([entry]);
  const queue: string[][] = [[entry]];
  while (queue.length > 0) {
    const chain = queue.shift()!;
    const file = chain[chain.length - 1]!;
    for (const spec of valueSpecifiersOf(file, readFileSync(path.join(SRC, file), 'utf8'))) {
      const next = resolveImport(file, spec, known);
      if (next === undefined) {
        if (!found.has(spec)) found.set(spec, chain);
        continue;
      }
      if (!seen.has(next)) {
        seen.add(next);
        queue.push([...chain, next]);
      }
    }
  }
  return found;
}

describe('what the service loads at start', () => {
  it('reads static imports and leaves type-only and dynamic ones out', () => {
    const text = [
      "import a from 'a';",
      "import { b } from 'b';",
      "import type C from 'c';",
      "import { type D } from 'd';",
      "import { type E, e } from 'e';",
      "import 'f';",
      "export { g } from 'g';",
      "export type { H } from 'h';",
      "const i = await import('i');",
    ].join('\n');
    expect(valueSpecifiersOf('x.ts', text)).toEqual(['a', 'b', 'e', 'f', 'g']);
  });

  const atStart = packagesAtStart('main.ts');

  it('includes what every instance needs', () => {
    for (const pkg of ['fastify', 'pino', 'prom-client', 'ajv']) expect(atStart.has(pkg), pkg).toBe(true);
  });

  it.each(['openai', '@anthropic-ai/sdk', '@langfuse/client', '@opentelemetry/sdk-node', 'pg'])(
    'does not include %s, which only a configured feature loads',
    (pkg) => {
      expect(atStart.get(pkg)?.join(' → ')).toBeUndefined();
    },
  );
});
