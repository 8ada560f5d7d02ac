/**
 * Inline SVG charts for the built-in page: no script, no external asset, no style attribute (colours
 * come from classes in the page's one style sheet, so light and dark mode both apply and the CSP
 * stays as it is). Every drawn value is also in the markup — data attributes on each chart and
 * bucket, a <title> per bucket for people — so what the chart shows can be read back and checked.
 * Text from spans (service, tool, model names) goes through the escaping `html` template.
 */
import { OUTCOMES } from '../model.js';
import { DAY } from '../queries/series.js';
import { html } from './html.js';
const r1 = (n) => (Math.round(n * 10) / 10).toString();
const iso = (t) => new Date(t).toISOString();
/** '09:03' for minute and hour buckets, '05-14' for day buckets (UTC). */
export function bucketLabel(t, stepMs) {
    const s = iso(t);
    return stepMs >= DAY ? s.slice(5, 10) : s.slice(11, 16);
}
export function pctText(r) {
    if (r === null)
        return '—';
    if (r > 0 && r < 0.001)
        return '<0.1%';
    return `${(r * 100).toFixed(r >= 0.995 || r === 0 ? 0 : 1)}%`;
}
/** A rate axis that is easy to read: 5 %, 10 %, 20 %, 50 % or 100 %. */
function rateCeiling(max) {
    return [0.05, 0.1, 0.2, 0.5, 1].find((c) => max <= c) ?? 1;
}
const plotW = (f) => f.w - f.left - f.right;
const plotH = (f) => f.h - f.top - f.bottom;
const slot = (f) => plotW(f) / Math.max(1, f.n);
const xOf = (f, i) => f.left + i * slot(f);
function timeAxis(f, buckets, stepMs) {
    if (buckets.length === 0)
        return html ``;
    const y = f.h - 6;
    const last = buckets.length - 1;
    const mid = Math.floor(last / 2);
    const label = (i, anchor) => html `<text class="ax" x="${r1(xOf(f, i) + (anchor === 'end' ? slot(f) : 0))}" y="${y}" text-anchor="${anchor}">${bucketLabel(buckets[i], stepMs)}</text>`;
    return html `${label(0, 'start')}${last > 2 ? label(mid, 'middle') : ''}${last > 0 ? label(last, 'end') : ''}`;
}
/**
 * Calls per bucket (bars; the failed part red) and the error rate (line, right axis) of one
 * series. Each bucket is a <g class="pt"> with data-t, data-calls, data-failed, data-checked and
 * data-rate, and a <title>.
 */
export function callsChart(s, buckets, stepMs, attrs) {
    const f = { w: 360, h: 126, left: 30, right: 34, top: 8, bottom: 20, n: buckets.length };
    const plot = {
        buckets,
        stepMs,
        x: (i, fr) => xOf(f, i) + fr * slot(f),
        top: 0,
        bottom: f.h - f.bottom,
        width: f.w,
    };
    const maxCalls = Math.max(1, ...s.points.map((p) => p.total));
    const rateMax = rateCeiling(Math.max(0, ...s.points.map((p) => p.errorRate ?? 0)));
    const bw = Math.max(0.6, slot(f) * (f.n > 90 ? 1 : 0.8));
    const yCalls = (v) => f.top + plotH(f) * (1 - v / maxCalls);
    const yRate = (r) => f.top + plotH(f) * (1 - r / rateMax);
    const bars = s.points.map((p, i) => {
        const x = xOf(f, i) + (slot(f) - bw) / 2;
        const title = `${bucketLabel(p.t, stepMs)} UTC · ${p.total} calls · ${p.failed} failed · error rate ${pctText(p.errorRate)}`;
        return html `<g class="pt" data-t="${iso(p.t)}" data-calls="${p.total}" data-failed="${p.failed}" data-checked="${p.checked}" data-rate="${p.errorRate ?? ''}"><title>${title}</title>${p.total > 0
            ? html `<rect class="c-calls" x="${r1(x)}" y="${r1(yCalls(p.total))}" width="${r1(bw)}" height="${r1(yCalls(0) - yCalls(p.total))}"></rect>`
            : ''}${p.failed > 0 ? html `<rect class="c-failed" x="${r1(x)}" y="${r1(yCalls(p.failed))}" width="${r1(bw)}" height="${r1(yCalls(0) - yCalls(p.failed))}"></rect>` : ''}</g>`;
    });
    // The error-rate line, broken where a bucket had nothing checked.
    const runs = [];
    let run = [];
    s.points.forEach((p, i) => {
        if (p.errorRate === null) {
            if (run.length)
                runs.push(run);
            run = [];
            return;
        }
        run.push(`${r1(xOf(f, i) + slot(f) / 2)},${r1(yRate(p.errorRate))}`);
    });
    if (run.length)
        runs.push(run);
    const lines = runs.map((pts) => pts.length === 1
        ? html `<circle class="l-dot" cx="${pts[0].split(',')[0]}" cy="${pts[0].split(',')[1]}" r="1.8"></circle>`
        : html `<polyline class="l-rate" points="${pts.join(' ')}"></polyline>`);
    const sum = s.sum;
    return html `<svg class="chart" data-chart="${attrs.chart}" data-total="${sum.total}" data-failed="${sum.failed}" data-checked="${sum.checked}" viewBox="0 0 ${f.w} ${f.h}" role="img" aria-label="${attrs.label}: ${sum.total} calls, ${sum.failed} failed, error rate ${pctText(sum.errorRate)}">
<line class="grid" x1="${f.left}" x2="${f.w - f.right}" y1="${f.top}" y2="${f.top}"></line><line class="grid" x1="${f.left}" x2="${f.w - f.right}" y1="${r1(f.top + plotH(f) / 2)}" y2="${r1(f.top + plotH(f) / 2)}"></line><line class="base" x1="${f.left}" x2="${f.w - f.right}" y1="${f.h - f.bottom}" y2="${f.h - f.bottom}"></line>
<text class="ax" x="${f.left - 4}" y="${f.top + 4}" text-anchor="end">${maxCalls}</text><text class="ax" x="${f.left - 4}" y="${f.h - f.bottom}" text-anchor="end">0</text>
<text class="ax rate" x="${f.w - f.right + 4}" y="${f.top + 4}">${Math.round(rateMax * 100)}%</text><text class="ax rate" x="${f.w - f.right + 4}" y="${f.h - f.bottom}">0%</text>
<g class="bars">${bars}</g>${lines}${attrs.overlay?.(plot) ?? ''}${timeAxis(f, buckets, stepMs)}</svg>`;
}
/** A small bar sparkline of one tool's calls per bucket, failures red; the counts in data-calls / data-failures. */
export function sparkline(s, buckets, label) {
    const n = buckets.length;
    const points = s?.points ?? [];
    const calls = points.map((p) => p.total);
    const failed = points.map((p) => p.failed);
    const max = Math.max(1, ...calls);
    const w = 96;
    const h = 22;
    const step = w / Math.max(1, n);
    const bw = Math.max(0.6, step * (n > 60 ? 1 : 0.8));
    const bar = (i, v, cls) => v > 0
        ? html `<rect class="${cls}" x="${r1(i * step + (step - bw) / 2)}" y="${r1(h - (h * v) / max)}" width="${r1(bw)}" height="${r1((h * v) / max)}"></rect>`
        : '';
    const total = s?.sum.total ?? 0;
    const fail = s?.sum.failed ?? 0;
    return html `<svg class="spark" data-chart="tool" data-total="${total}" data-failed="${fail}" data-calls="${calls.join(',')}" data-failures="${failed.join(',')}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${label}: ${total} calls, ${fail} failed"><title>${label}: ${total} calls, ${fail} failed · peak ${max}/bucket</title><line class="base" x1="0" x2="${w}" y1="${h - 0.5}" y2="${h - 0.5}"></line>${calls.map((v, i) => bar(i, v, 'c-calls'))}${failed.map((v, i) => bar(i, v, 'c-failed'))}</svg>`;
}
/**
 * 100 % stacked columns: each bucket's parts as shares of its total (outcome mix, model mix). Each
 * bucket is a <g class="pt"> with data-t, data-total and one data-v<i> per part (in `parts` order,
 * listed as JSON in the svg's data-keys), and a <title> naming every part.
 */
export function sharesChart(buckets, stepMs, parts, valueAt, attrs) {
    // Room above the plot for the markers' labels.
    const f = { w: 360, h: 118, left: 30, right: 8, top: 16, bottom: 20, n: buckets.length };
    const plot = {
        buckets,
        stepMs,
        x: (i, fr) => xOf(f, i) + fr * slot(f),
        top: 0,
        bottom: f.h - f.bottom,
        width: f.w,
    };
    const bw = Math.max(0.6, slot(f) * (f.n > 90 ? 1 : 0.8));
    const cols = buckets.map((t, i) => {
        const values = parts.map((p) => valueAt(i, p.key));
        const total = values.reduce((a, b) => a + b, 0);
        let y = f.h - f.bottom;
        const segs = parts.map((p, k) => {
            const v = values[k];
            if (v === 0)
                return '';
            const hgt = (plotH(f) * v) / total;
            y -= hgt;
            return html `<rect class="${p.cls}" x="${r1(xOf(f, i) + (slot(f) - bw) / 2)}" y="${r1(y)}" width="${r1(bw)}" height="${r1(hgt)}"></rect>`;
        });
        const title = total
            ? `${bucketLabel(t, stepMs)} UTC · ${parts
                .map((p, k) => [p.key, values[k]])
                .filter(([, v]) => v > 0)
                .map(([k, v]) => `${k} ${v} (${pctText(v / total)})`)
                .join(', ')}`
            : `${bucketLabel(t, stepMs)} UTC · no calls`;
        const data = values.map((v, k) => html ` data-v${k}="${v}"`);
        return html `<g class="pt" data-t="${iso(t)}" data-total="${total}"${data}><title>${title}</title>${segs}</g>`;
    });
    const markers = (attrs.markers ?? []).map((m) => {
        const i = buckets.findIndex((b) => m.minute >= b && m.minute < b + stepMs);
        if (i < 0)
            return '';
        const x = xOf(f, i) + ((m.minute - buckets[i]) / stepMs) * slot(f);
        const anchor = x > f.w * 0.66 ? 'end' : 'start';
        return html `<g class="marker k-model" data-model="${m.model}" data-minute="${iso(m.minute)}"><title>${m.model}: first call ${bucketLabel(m.minute, 60_000)} UTC (before: ${m.before.join(', ')})</title><line x1="${r1(x)}" x2="${r1(x)}" y1="${f.top - 12}" y2="${f.h - f.bottom}"></line><text x="${r1(anchor === 'end' ? x - 3 : x + 3)}" y="${f.top - 5}" text-anchor="${anchor}">→ ${m.model}</text></g>`;
    });
    return html `<svg class="chart" data-chart="${attrs.chart}" data-keys="${JSON.stringify(parts.map((p) => p.key))}" viewBox="0 0 ${f.w} ${f.h}" role="img" aria-label="${attrs.label}">
<line class="base" x1="${f.left}" x2="${f.w - f.right}" y1="${f.h - f.bottom}" y2="${f.h - f.bottom}"></line><text class="ax" x="${f.left - 4}" y="${f.top + 4}" text-anchor="end">100%</text><text class="ax" x="${f.left - 4}" y="${f.h - f.bottom}" text-anchor="end">0</text>
<g class="bars">${cols}</g>${markers}${attrs.overlay?.(plot) ?? ''}${timeAxis(f, buckets, stepMs)}</svg>`;
}
/** The outcome classes the page's style sheet colours. */
export const outcomePart = (o) => ({ key: o, cls: `f-${o}` });
export const OUTCOME_PARTS = OUTCOMES.map(outcomePart);
/** Tool shares of one service: the drift rule's baseline (grey) against now (coloured), one row per tool. */
export function driftChart(v, label) {
    const rowH = 16;
    const labelW = 120;
    const barW = 170;
    const h = 6 + v.tools.length * rowH;
    const rows = v.tools.map((t, i) => {
        const y = 4 + i * rowH;
        const name = t.tool.length > 22 ? `${t.tool.slice(0, 21)}…` : t.tool;
        return html `<g class="share" data-tool="${t.tool}" data-before="${t.before}" data-after="${t.after}"><title>${t.tool}: ${pctText(t.before)} in the baseline → ${pctText(t.after)} now</title>
<text class="ax name" x="${labelW - 6}" y="${y + 10}" text-anchor="end">${name}</text>
<rect class="d-before" x="${labelW}" y="${y + 1}" width="${r1(Math.max(0.5, barW * t.before))}" height="5"></rect>
<rect class="d-after" x="${labelW}" y="${y + 7}" width="${r1(Math.max(0.5, barW * t.after))}" height="6"></rect>
<text class="ax" x="${labelW + barW + 6}" y="${y + 10}">${pctText(t.before)} → ${pctText(t.after)}</text></g>`;
    });
    return html `<svg class="chart drift" data-chart="drift" data-distance="${v.distance}" data-p-value="${v.pValue}" viewBox="0 0 360 ${h}" role="img" aria-label="${label}">${rows}</svg>`;
}
//# sourceMappingURL=charts.js.map