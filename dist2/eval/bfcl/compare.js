export function compareBfcl(key, report, baseline) {
    const cur = report?.models.find((m) => m.key === key);
    if (!cur)
        return undefined;
    const base = baseline?.models.find((m) => m.key === key);
    const categories = cur.categories.map((c) => {
        const b = base?.categories.find((x) => x.category === c.category);
        const before = b?.accuracy.value ?? null;
        const now = c.accuracy.value;
        return {
            category: c.category,
            baseline: before,
            current: now,
            deltaPp: before === null || now === null ? null : Math.round((now - before) * 1e6) / 1e4,
        };
    });
    const was = new Map(base?.entries.map((e) => [e.id, e.valid]) ?? []);
    const fixed = cur.entries.filter((e) => e.valid && was.get(e.id) === false).map((e) => e.id);
    const broke = cur.entries.filter((e) => !e.valid && was.get(e.id) === true).map((e) => e.id);
    return { categories, fixed, broke };
}
const pct = (v) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
export function formatBfclComparison(c) {
    const lines = c.categories.map((x) => `  bfcl ${x.category}: ${pct(x.baseline)} → ${pct(x.current)}${x.deltaPp === null ? '' : ` (${x.deltaPp >= 0 ? '+' : ''}${x.deltaPp} pp)`}`);
    if (c.fixed.length)
        lines.push(`  bfcl fixed: ${c.fixed.join(', ')}`);
    if (c.broke.length)
        lines.push(`  bfcl broke: ${c.broke.join(', ')}`);
    return lines;
}
//# sourceMappingURL=compare.js.map