import { bucketLabel } from './charts.js';
import { html } from './html.js';
export const MARKER_KINDS = [
    { kind: 'tool_definition', label: 'definitions' },
    { kind: 'tool_set', label: 'tool sets' },
    { kind: 'prompt', label: 'prompts' },
    { kind: 'model', label: 'models' },
    { kind: 'provider', label: 'providers' },
];
/** Version hashes shortened; names (models, providers) as they are. */
export const shortValue = (v) => (/^[0-9a-f]{16,}$/.test(v) ? v.slice(0, 8) : v || '(none)');
function markLabel(c) {
    switch (c.kind) {
        case 'tool_definition':
            return `✎ ${c.tool ?? 'tool'}`;
        case 'tool_set':
            return '± tools';
        case 'prompt':
            return '✎ prompt';
        case 'model':
            return `→ ${c.to}`;
        case 'provider':
            return `⇄ ${c.to}`;
    }
}
export function changeSentence(c) {
    const what = c.kind === 'tool_definition'
        ? `${c.tool ?? 'a tool'}'s definition changed`
        : c.kind === 'tool_set'
            ? 'the set of offered tools changed'
            : c.kind === 'prompt'
                ? 'the system prompt changed'
                : `the ${c.kind} changed`;
    return `${c.service}: ${what} (${shortValue(c.from)} → ${shortValue(c.to)})`;
}
const r1 = (n) => (Math.round(n * 10) / 10).toString();
/** The markers inside the plotted range; the rest are left out. */
export function markerLines(marks, p) {
    return html `${marks.map((m) => {
        const i = p.buckets.findIndex((b) => m.timeMs >= b && m.timeMs < b + p.stepMs);
        if (i < 0)
            return '';
        const x = p.x(i, (m.timeMs - p.buckets[i]) / p.stepMs);
        const anchor = x > p.width * 0.66 ? 'end' : 'start';
        const at = new Date(m.timeMs).toISOString();
        return html `<g class="change k-${m.kind}" data-kind="${m.kind}" data-time="${at}" data-from="${m.from}" data-to="${m.to}"${m.tool !== undefined ? html ` data-tool="${m.tool}"` : ''}><title>${at.slice(11, 16)} UTC · ${changeSentence(m)}</title><line x1="${r1(x)}" x2="${r1(x)}" y1="${p.top}" y2="${p.bottom}"></line><text x="${r1(anchor === 'end' ? x - 3 : x + 3)}" y="${p.top + 7}" text-anchor="${anchor}">${markLabel(m)}</text></g>`;
    })}`;
}
/** Bars of counts per bucket (e.g. a problem's occurrences per hour) with change markers; each bar's count in data-count. */
export function countChart(buckets, counts, stepMs, attrs) {
    const w = 720;
    const h = 150;
    const left = 34;
    const right = 8;
    const top = 16;
    const bottom = 20;
    const slot = (w - left - right) / Math.max(1, buckets.length);
    const max = Math.max(1, ...counts);
    const y = (v) => top + (h - top - bottom) * (1 - v / max);
    const bw = Math.max(0.6, slot * 0.8);
    const bars = buckets.map((t, i) => {
        const v = counts[i] ?? 0;
        return html `<g class="pt" data-t="${new Date(t).toISOString()}" data-count="${v}"><title>${bucketLabel(t, stepMs)} UTC · ${v}</title>${v > 0
            ? html `<rect class="c-failed" x="${r1(left + i * slot + (slot - bw) / 2)}" y="${r1(y(v))}" width="${r1(bw)}" height="${r1(y(0) - y(v))}"></rect>`
            : ''}</g>`;
    });
    const plot = { buckets, stepMs, x: (i, f) => left + (i + f) * slot, top: 2, bottom: h - bottom, width: w };
    const last = buckets.length - 1;
    const axis = buckets.length
        ? html `<text class="ax" x="${left}" y="${h - 6}">${bucketLabel(buckets[0], stepMs)}</text>${last > 0 ? html `<text class="ax" x="${w - right}" y="${h - 6}" text-anchor="end">${bucketLabel(buckets[last], stepMs)}</text>` : ''}`
        : '';
    return html `<svg class="chart" data-chart="${attrs.chart}" data-total="${counts.reduce((a, b) => a + b, 0)}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${attrs.label}">
<line class="base" x1="${left}" x2="${w - right}" y1="${h - bottom}" y2="${h - bottom}"></line><text class="ax" x="${left - 4}" y="${top + 4}" text-anchor="end">${max}</text><text class="ax" x="${left - 4}" y="${h - bottom}" text-anchor="end">0</text>
<g class="bars">${bars}</g>${markerLines(attrs.marks ?? [], plot)}${axis}</svg>`;
}
/** Checkboxes that hide a kind of marker on every chart of the page (the page script toggles `hide-<kind>`). */
export function markerFilter() {
    return html `<span class="marker-filter">markers: ${MARKER_KINDS.map((k) => html `<label><input type="checkbox" checked data-marker-kind="${k.kind}"><i class="sw k-${k.kind}"></i>${k.label}</label>`)}</span>`;
}
//# sourceMappingURL=markers.js.map