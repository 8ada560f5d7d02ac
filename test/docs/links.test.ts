/**
 * The README is the five-minute overview and docs/ the reference (issue 18, item 5): the README stays
 * short, and every relative link in either — to a page, a heading on a page, or a file of the
 * repository such as a screenshot — leads somewhere, so moving a section cannot strand its readers.
 * Anchors are GitHub's: the heading lower-cased, punctuation dropped, spaces as hyphens, `-1`, `-2`
 * for repeats on one page.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sections } from './markdown.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  ...readdirSync(path.join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const s of sections(text)) {
    const base = slug(s.title);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative Markdown links `[text](target)` outside code fences; absolute URLs are not ours to check. */
function linksOf(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}

describe('README and docs/', () => {
  it('the README is an overview of at most 300 lines', () => {
    const lines = readFileSync(path.join(REPO, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(300);
  });

  it('every relative link leads to a file, and every anchor to a heading on that page', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const link of linksOf(readFileSync(path.join(REPO, page), 'utf8'))) {
        const [file, anchor] = link.split('#') as [string, string | undefined];
        const target = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
        if (!existsSync(path.join(REPO, target))) {
          broken.push(`${page}: ${link} (no file ${target})`);
          continue;
        }
        if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(path.join(REPO, target), 'utf8')).has(anchor))
          broken.push(`${page}: ${link} (no heading #${anchor} in ${target})`);
      }
    }
    expect(broken, broken.join('\n')).toEqual([]);
  });

  it('every docs page is reachable from the docs index', () => {
    const index = linksOf(readFileSync(path.join(REPO, 'docs/README.md'), 'utf8'));
    const pages = PAGES.filter((p) => p.startsWith('docs/') && p !== 'docs/README.md').map((p) => p.slice(5));
    expect(pages.filter((p) => !index.includes(p))).toEqual([]);
  });
});
