/**
 * How a problem alert (new_problem, regressed_problem) says what it is about, for every notifier:
 * "refund_order: `amount` is missing — 37 calls in 10 min, gpt-4.1 only, first seen 10:02 UTC".
 * One wording, two renderings: plain text (names in backticks) and Slack (each name an escaped code
 * span, the rest escaped), so nothing a span carries can format or mention anything.
 */
import type { ProblemCostFacts, ProblemFacts, Words } from './rules.js';

export interface Render {
  text(s: string): string;
  code(s: string): string;
}

export const plain: Render = { text: (s) => s, code: (s) => `\`${s}\`` };

export function renderWords(w: Words, r: Render): string {
  return w.map((s) => ('code' in s ? r.code(s.code) : r.text(s.text))).join('');
}

/** "37 calls in 10 min" — the calls between first and last seen. */
export function callsText(f: ProblemFacts): string {
  const span = Math.max(1, Math.ceil((f.lastSeenMs - f.firstSeenMs) / 60_000));
  return `${f.occurrences} call${f.occurrences === 1 ? '' : 's'} in ${minutes(span)}`;
}

/** "gpt-4.1 only", or "on gpt-4.1 (30), gpt-4o (7) and 2 more". */
export function modelsText(f: ProblemFacts, r: Render): string {
  if (f.models.length === 0) return r.text('no model named');
  if (f.models.length === 1 && f.moreModels === 0) return `${r.code(f.models[0]!.model)}${r.text(' only')}`;
  const list = f.models.map((m) => `${r.code(m.model)}${r.text(` (${m.count})`)}`).join(r.text(', '));
  return `${r.text('on ')}${list}${f.moreModels ? r.text(` and ${f.moreModels} more`) : ''}`;
}

/** "first seen 10:02 UTC", or "seen again 14:30 UTC after it was resolved, first seen …". */
export function seenText(f: ProblemFacts, now: number): string {
  const first = `first seen ${clock(f.firstSeenMs, now)}`;
  return f.transition === 'new' ? first : `seen again ${clock(f.sinceMs, now)} after it was resolved, ${first}`;
}

/**
 * "2 repairs cost 12,400 tokens and 3 min ($0.0312)" — the repair turns after its failures so far;
 * money only when problems.prices priced some of them; undefined before any repair was recorded.
 */
export function costText(c: ProblemCostFacts | undefined): string | undefined {
  if (!c || c.repairs === 0) return undefined;
  const tokens = c.inputTokens + c.outputTokens;
  const money =
    c.usd === null
      ? ''
      : ` (${usd(c.usd)}${c.unpricedTokens > 0 ? `; ${count(c.unpricedTokens)} tokens unpriced` : ''})`;
  return `${count(c.repairs)} repair${c.repairs === 1 ? '' : 's'} cost ${count(tokens)} token${tokens === 1 ? '' : 's'} and ${duration(c.durationMs)}${money}`;
}

/** The whole line. */
export function problemLine(f: ProblemFacts, now: number, r: Render = plain): string {
  const cost = costText(f.cost);
  return (
    `${renderWords(f.what, r)}${r.text(` — ${callsText(f)}, `)}${modelsText(f, r)}` +
    r.text(`, ${seenText(f, now)}${cost ? `; ${cost}` : ''}`)
  );
}

const count = (n: number): string => n.toLocaleString('en-US');

/** Dollars: cents from $1 on, four decimals below. */
function usd(x: number): string {
  return x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`;
}

/** "45 s", "3 min", "2 h" (rounded), for a repair's wall time. */
function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  return minutes(Math.round(s / 60));
}

function minutes(min: number): string {
  if (min < 120) return `${min} min`;
  if (min < 48 * 60) return `${Math.round(min / 60)} h`;
  return `${Math.round(min / 1440)} days`;
}

/** HH:MM UTC on the day of `now`, else with the date. */
export function clock(ms: number, now: number): string {
  const iso = new Date(ms).toISOString();
  const sameDay = iso.slice(0, 10) === new Date(now).toISOString().slice(0, 10);
  return `${sameDay ? '' : `${iso.slice(0, 10)} `}${iso.slice(11, 16)} UTC`;
}
