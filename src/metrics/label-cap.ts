/**
 * Caps the distinct values a label may take, so no input can explode cardinality: the first
 * `max` values are kept, any later one becomes `_other`.
 */
export const OTHER = '_other';

export class LabelCap {
  private readonly seen = new Map<string, Set<string>>();
  constructor(
    private readonly max: number,
    private readonly onOverflow: (label: string) => void = () => {},
  ) {}

  value(label: string, v: string): string {
    let set = this.seen.get(label);
    if (!set) this.seen.set(label, (set = new Set()));
    if (set.has(v)) return v;
    if (set.size >= this.max) {
      this.onOverflow(label);
      return OTHER;
    }
    set.add(v);
    return v;
  }
}
