/**
 * A trace's models, counted without an object per trace for the common case: the first model and its
 * count live in the tracker's columns, and only a second model makes this list.
 */
export function bumpOther(list, key) {
    for (let i = 0; i < list.length; i += 2) {
        if (list[i] === key) {
            list[i + 1]++;
            return;
        }
    }
    list.push(key, 1);
}
/** The model counted most often (the first seen on a tie). */
export function most(first, n, others) {
    let best = first;
    let top = n;
    const rest = others ?? [];
    for (let i = 0; i < rest.length; i += 2) {
        if (rest[i + 1] > top) {
            best = rest[i];
            top = rest[i + 1];
        }
    }
    return best;
}
//# sourceMappingURL=model-tally.js.map