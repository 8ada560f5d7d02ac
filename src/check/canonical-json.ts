/**
 * JSON with sorted keys: two values JSON Schema calls equal (`uniqueItems`, `enum`, and two schemas
 * sharing one validator) have the same text whatever their key order. undefined for undefined.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = Object.create(null);
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}
