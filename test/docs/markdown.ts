/**
 * Just enough Markdown for the README contract test: sections by heading, pipe tables, inline code
 * spans and fenced code blocks. Whitespace inside code is collapsed (a span may wrap across lines)
 * and `\|` (a pipe escaped inside a table cell) is read as `|`.
 */

export interface Section {
  level: number;
  title: string;
  /** The section's text up to the next heading of the same or a higher level (its subsections included). */
  text: string;
}

export interface TableRow {
  cells: string[];
  /** The raw line, for messages. */
  line: string;
}

export interface Table {
  header: string[];
  rows: TableRow[];
  /** The nearest heading above the table. */
  section: string;
}

const FENCE = /^\s*```/;

/** The text with fenced code blocks removed (their lines left empty, so line structure stays). */
export function withoutFences(text: string): string {
  let inFence = false;
  return text
    .split('\n')
    .map((line) => {
      if (FENCE.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line;
    })
    .join('\n');
}

/** The contents of every fenced code block, whitespace collapsed. */
export function fencedBlocks(text: string): string[] {
  const out: string[] = [];
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) {
      if (current) {
        out.push(collapse(current.join('\n')));
        current = undefined;
      } else current = [];
    } else current?.push(line);
  }
  return out;
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Inline code spans outside fenced blocks, whitespace collapsed, `\|` read as `|`. */
export function codeSpans(text: string): string[] {
  return [...withoutFences(text).matchAll(/`([^`]+)`/g)].map((m) => collapse(m[1]!.replace(/\\\|/g, '|')));
}

/** Every piece of code in the text: inline spans and fenced blocks. */
export function allCode(text: string): string[] {
  return [...codeSpans(text), ...fencedBlocks(text)];
}

/** The identifiers in a piece of code (`[{name, url?}]` → name, url). */
export function identifiers(code: string): string[] {
  return [...code.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)].map((m) => m[0]);
}

/** Command-line options in a piece of code (`--report/--junit FILE` → --report, --junit). */
export function options(code: string): string[] {
  return [...code.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((m) => m[0]);
}

export function sections(text: string): Section[] {
  const lines = withoutFences(text).split('\n');
  const raw = text.split('\n');
  const heads: { level: number; title: string; at: number }[] = [];
  lines.forEach((line, at) => {
    const m = /^(#{1,6})\s+(.*)$/.exec(line);
    if (m) heads.push({ level: m[1]!.length, title: m[2]!.trim(), at });
  });
  return heads.map((h, i) => {
    const end = heads.slice(i + 1).find((n) => n.level <= h.level)?.at ?? raw.length;
    return { level: h.level, title: h.title, text: raw.slice(h.at + 1, end).join('\n') };
  });
}

/** The section with this exact title; throws when there is none (the test names what it looks for). */
export function section(text: string, title: string): Section {
  const s = sections(text).find((x) => x.title === title);
  if (!s) throw new Error(`README has no section titled ${JSON.stringify(title)}`);
  return s;
}

/** Cells of a table line, split on pipes that are not escaped. */
function cells(line: string): string[] {
  const parts = line.trim().split(/(?<!\\)\|/);
  return parts.slice(1, parts.length - 1).map((c) => c.trim());
}

export function tables(text: string): Table[] {
  const lines = withoutFences(text).split('\n');
  const out: Table[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const h = /^#{1,6}\s+(.*)$/.exec(line);
    if (h) heading = h[1]!.trim();
    if (!line.startsWith('|') || !/^\|\s*:?-+/.test(lines[i + 1] ?? '')) continue;
    const table: Table = { header: cells(line), rows: [], section: heading };
    let j = i + 2;
    for (; j < lines.length && lines[j]!.startsWith('|'); j++)
      table.rows.push({ cells: cells(lines[j]!), line: lines[j]! });
    out.push(table);
    i = j - 1;
  }
  return out;
}

/** Tables whose header is exactly this (cell by cell). */
export function tablesWithHeader(text: string, header: string[]): Table[] {
  return tables(text).filter((t) => t.header.length === header.length && t.header.every((c, i) => c === header[i]));
}
