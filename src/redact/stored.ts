/**
 * Redaction of what toolwatch stores (store.redact_arguments): the arguments and messages of failure
 * records and the free text of sampled trajectories are masked before they are written. Counting and
 * classification happen before this, on the values as sent; only the stored copy is masked, and only
 * what is stored pays for it (a few records per tool and minute, the sampled trajectories).
 *
 * Fails closed: a value the redactor cannot handle (it throws — a structure nested too deeply to walk,
 * a pathological input) is not stored at all, and the reason is recorded in its place. A JSON value
 * in whose text no rule could match anything (src/redact/prescan.ts) is not parsed or walked: it is
 * stored as sent, however deeply nested, since there is nothing in it to hold back.
 */
import { createRedactor, type MaskingRedactor } from './redact.js';
import { parseJson } from '../util/values.js';

export type StoredRedaction = 'secrets' | 'pii' | 'none';

export type Redacted = { ok: true; value: string } | { ok: false; reason: string };

export interface StoreRedactor {
  readonly level: StoredRedaction;
  /**
   * Arguments as stored: a JSON object or array is masked value by value (so the result is still JSON,
   * and a card sent as a number is masked too) and the text as sent is kept when nothing was masked;
   * anything else is masked as text.
   */
  json(raw: string): Redacted;
  /** Free text (a message, a model's answer, a tool result that is not JSON). */
  text(s: string): Redacted;
}

const keep = (value: string): Redacted => ({ ok: true, value });

export function storeRedactor(level: StoredRedaction): StoreRedactor {
  if (level === 'none') return { level, json: keep, text: keep };
  // Secret-named keys are built into the redactor (src/redact/secret-keys.ts), as for the judge and the export.
  const r = createRedactor({ fields: [], patterns: [], level });
  return { level, json: (raw) => guarded(() => maskJson(r, raw)), text: (s) => guarded(() => r.text(s)) };
}

/**
 * Whether JSON.parse could make an object or array of this text: its first character past JSON's
 * whitespace opens one. Anything else is masked as text whether it parses (a number, a string) or
 * not, so it is not parsed: a failed parse throws, and tool results such as "Error: …" are common.
 */
function opensContainer(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) continue;
    return c === 123 || c === 91;
  }
  return false;
}

function maskJson(r: MaskingRedactor, raw: string): string {
  if (!opensContainer(raw)) return r.text(raw);
  // Nothing in the text any rule could mask: kept as sent, neither parsed nor walked.
  if (!r.mayChangeJson(raw)) return raw;
  // parseJson: a failed parse (truncated arguments) captures no stack, which cost ~37 µs each.
  const parsed = parseJson(raw);
  if (!parsed || typeof parsed !== 'object') return r.text(raw);
  // Most arguments hold nothing to mask: then the walk hands back the parsed value itself, and the
  // text as sent is kept without serialising anything.
  const masked = r.masked(parsed);
  if (masked === parsed) return raw;
  const after = JSON.stringify(masked);
  return after === JSON.stringify(parsed) ? raw : after;
}

function guarded(fn: () => string): Redacted {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    return {
      ok: false,
      reason: `redaction failed (${(err as Error).name}: ${(err as Error).message.slice(0, 200)}); not stored`,
    };
  }
}
