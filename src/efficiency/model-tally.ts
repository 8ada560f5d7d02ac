/**
 * A trace's models, counted without an object per trace for the common case: the first model and its
 * count live in the tracker's columns, and only a second model makes this list.
 */

/** [model, count, …] beyond a trace's first model (made only when a second one appears). */
export type Others = (string | number)[];

export function bumpOther(list: Others, key: string): void {
  for (let i = 0; i < list.length; i += 2) {
    if (list[i] === key) {
      (list[i + 1] as number)++;
      return;
    }
  }
  list.push(key, 1);
}

/** The model counted most often (the first seen on a tie). */
export function most(first: string | undefined, n: number, others: Others | undefined): string | undefined {
  let best = first;
  let top = n;
  const rest = others ?? [];
  for (let i = 0; i < rest.length; i += 2) {
    if ((rest[i + 1] as number) > top) {
      best = rest[i] as string;
      top = rest[i + 1] as number;
    }
  }
  return best;
}
