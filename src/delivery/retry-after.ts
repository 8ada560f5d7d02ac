/**
 * How long a server asks us to wait: `retry-after-ms` (OpenAI and Azure send it), then `Retry-After`
 * as delay-seconds or an HTTP date (RFC 9110 §10.2.3). Every sender of toolwatch reads it here.
 */

/** Response headers as fetch (`Headers`), node:http (a lower-cased record) or a client library gives them. */
export type HeaderSource =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | null
  | undefined;

const NUMBER = /^\d+(\.\d+)?$/;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof headers.get === 'function')
    return (headers as { get(n: string): string | null | undefined }).get(name)?.trim() || undefined;
  const v = (headers as Readonly<Record<string, string | readonly string[] | undefined>>)[name];
  return (Array.isArray(v) ? v[0] : (v as string | undefined))?.trim() || undefined;
}

/** The wait in ms from nowMs; undefined when no header says one (or it cannot be read). A date in the past is 0. */
export function parseRetryAfter(headers: HeaderSource, nowMs: number): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && NUMBER.test(ms)) return Math.round(Number(ms));
  const v = header(headers, 'retry-after');
  if (v === undefined) return undefined;
  if (NUMBER.test(v)) return Math.round(Number(v) * 1000);
  if (/^[+-]?[\d.]+$/.test(v)) return undefined; // a number, but not delay-seconds (Date.parse would take it for a year)
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
