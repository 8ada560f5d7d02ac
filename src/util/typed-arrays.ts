/** Growing the typed-array columns that keep per-item state out of the garbage collector's work. */

export type Column = Int32Array | Uint32Array | Uint16Array | Float64Array | Uint8Array;

/** A column of the same type, `length` long, holding `a`'s values at the front (zeros after them). */
export function grown<T extends Column>(a: T, length: number): T {
  const b = sameType(a, length);
  b.set(a);
  return b;
}

/** An empty column of `a`'s type, `length` long. */
export function sameType<T extends Column>(a: T, length: number): T {
  return new (a.constructor as new (length: number) => T)(length);
}
