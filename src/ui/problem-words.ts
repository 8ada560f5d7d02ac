/**
 * A problem's signature in words on the page. The wording is the problems layer's
 * (src/problems/in-words.ts, which alert messages use too); this renders it as HTML: the names that
 * came from spans or schemas as escaped `<code>`, the rest escaped.
 */
import type { Words } from '../alerts/rules.js';
import { partsInWords, problemInWords } from '../problems/in-words.js';
import { html, type SafeHtml } from './html.js';

export interface SignatureLike {
  id: string;
  outcome: string;
  tool: string;
  parts: readonly string[];
}

export function wordsHtml(w: Words): SafeHtml {
  return html`${w.map((s) => ('code' in s ? html`<code>${s.code}</code>` : html`${s.text}`))}`;
}

/** One line per part (SchemaMismatch has one per reduced validation error). */
export function signatureWords(p: SignatureLike): SafeHtml[] {
  return partsInWords(p).map(wordsHtml);
}

/** The signature in one line: the tool, then what goes wrong. */
export function signatureLine(p: SignatureLike): SafeHtml {
  return wordsHtml(problemInWords(p));
}
