/**
 * The page's only style sheet and script, inlined (no external assets: the page works offline and
 * under `default-src 'none'`). Both carry the per-response CSP nonce; no inline style attributes or
 * event-handler attributes are used anywhere, so the policy needs no 'unsafe-inline'.
 */
/** Error-rate bars come in 5 % steps (.bar-0 … .bar-20): widths as classes, not style attributes. */
const barSteps = Array.from({ length: 21 }, (_, i) => `.bar-${i}>i{width:${i * 5}%}`).join('');
export const STYLE = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#656d76;--line:#d8dee4;--line2:#eaeef2;--bg:#f6f8fa;--card:#fff;--th:#fafbfc;--hover:#f6f8fa;
--zero:#afb8c1;--code-bg:#eaeef2;--args:#424a53;--accent:#0969da;--warn-line:#d4a72c;
--valid:#1a7f37;--valid-bg:#dafbe1;--invalid:#cf222e;--invalid-bg:#ffebe9;--unknown:#8250df;--unknown-bg:#fbefff;
--mismatch:#bc4c00;--mismatch-bg:#fff1e5;--unval:#8c959f;--unval-bg:#eaeef2;--warn:#9a6700;--warn-bg:#fff8c5;
--ch-calls:#b6c2cf;--ch-rate:#0969da;--m0:#0969da;--m1:#bf3989;--m2:#1a7f37;--m3:#9a6700;--m4:#8250df;--m5:#0a7a8a;--m6:#bc4c00;--m7:#8c959f}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#8d96a0;--line:#30363d;--line2:#262c34;--bg:#0d1117;--card:#161b22;--th:#1a2029;--hover:#1c2128;
--zero:#484f58;--code-bg:#2d333b;--args:#adbac7;--accent:#4493f8;--warn-line:#9e6a03;
--valid:#3fb950;--valid-bg:#12261e;--invalid:#f85149;--invalid-bg:#2d1517;--unknown:#bc8cff;--unknown-bg:#271d3a;
--mismatch:#f0883e;--mismatch-bg:#2d1d0f;--unval:#8d96a0;--unval-bg:#21262d;--warn:#d29922;--warn-bg:#2b2111;
--ch-calls:#4a5562;--ch-rate:#58a6ff;--m0:#4493f8;--m1:#db61a2;--m2:#3fb950;--m3:#d29922;--m4:#a371f7;--m5:#39c5cf;--m6:#f0883e;--m7:#8d96a0}}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
header{display:flex;flex-wrap:wrap;align-items:center;gap:12px 20px;padding:12px 24px;background:#24292f;color:#fff}
header h1{margin:0;font-size:18px;font-weight:600;letter-spacing:.2px}
header .spacer{flex:1}
header label{color:#d0d7de;font-size:13px;display:flex;align-items:center;gap:6px}
header select,header input[type=search]{font:inherit;font-size:13px;padding:4px 8px;border-radius:6px;border:1px solid #57606a;background:#32383f;color:#fff}
header input[type=search]{width:180px}header select{max-width:180px}
.seg{display:inline-flex;border:1px solid #57606a;border-radius:6px;overflow:hidden}
.seg a{color:#d0d7de;padding:4px 12px;font-size:13px}.seg a+a{border-left:1px solid #57606a}
.seg a.on{background:#f6f8fa;color:#24292f;font-weight:600}.seg a:hover{text-decoration:none;background:#32383f}.seg a.on:hover{background:#f6f8fa}
.updated{color:#8c959f;font-size:12px}
main{padding:20px 24px 40px;max-width:1600px;margin:0 auto}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;margin-bottom:20px}
section>h2{display:flex;align-items:baseline;gap:10px;margin:0;padding:12px 16px;font-size:15px;border-bottom:1px solid var(--line)}
section>h2 small,section h3 small{font-weight:400;color:var(--muted);font-size:12px}
section>h2 .right{margin-left:auto;font-weight:400;font-size:12px}
section h3{margin:0;padding:12px 16px 0;font-size:13px;font-weight:600}
.empty{padding:16px;color:var(--muted)}
.cards{display:grid;grid-template-columns:repeat(6,minmax(0,1fr));gap:12px;margin-bottom:20px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px 14px}
.card .k{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.4px}
.card .v{font-size:24px;font-weight:600;margin-top:2px;font-variant-numeric:tabular-nums}
.card .s{color:var(--muted);font-size:12px}
.card.bad{border-color:var(--invalid);background:var(--invalid-bg)}.card.bad .v{color:var(--invalid)}
.card.warn{border-color:var(--warn-line);background:var(--warn-bg)}.card.warn .v{color:var(--warn)}
table{width:100%;border-collapse:collapse}
th,td{padding:7px 10px;text-align:left;vertical-align:top;border-bottom:1px solid var(--line2)}
th{font-size:12px;font-weight:600;color:var(--muted);background:var(--th);white-space:nowrap}
tr:last-child td{border-bottom:0}
tbody tr:hover{background:var(--hover)}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.zero{color:var(--zero)}
.dot{display:inline-block;width:8px;height:8px;border-radius:50%;margin-right:5px;vertical-align:middle}
.badge{display:inline-block;padding:1px 8px;border-radius:999px;font-size:12px;font-weight:600;white-space:nowrap}
.o-valid{color:var(--valid);background:var(--valid-bg)}.dot.o-valid{background:var(--valid)}
.o-InvalidJson{color:var(--invalid);background:var(--invalid-bg)}.dot.o-InvalidJson{background:var(--invalid)}
.o-UnknownName{color:var(--unknown);background:var(--unknown-bg)}.dot.o-UnknownName{background:var(--unknown)}
.o-SchemaMismatch{color:var(--mismatch);background:var(--mismatch-bg)}.dot.o-SchemaMismatch{background:var(--mismatch)}
.o-unvalidated{color:var(--unval);background:var(--unval-bg)}.dot.o-unvalidated{background:var(--unval)}
.s-firing{color:#fff;background:var(--invalid)}.s-pending{color:var(--warn);background:var(--warn-bg)}.s-resolved{color:var(--valid);background:var(--valid-bg)}
.rate{display:flex;align-items:center;gap:8px;justify-content:flex-end}
.rate b{min-width:52px;text-align:right;font-weight:600}
.bar{display:inline-block;width:80px;height:6px;border-radius:3px;background:var(--line2);overflow:hidden}.bar>i{display:block;height:100%;background:var(--valid)}
${barSteps}
.r-warn b{color:var(--warn)}.r-warn .bar>i{background:var(--warn-line)}
.r-high b{color:var(--invalid)}.r-high .bar>i{background:var(--invalid)}
tr.r-high td:first-child{box-shadow:inset 3px 0 var(--invalid)}
.tag{display:inline-block;font-size:11px;padding:0 6px;border-radius:4px;background:var(--unknown-bg);color:var(--unknown);margin-left:4px}
.args{max-width:340px;word-break:break-all;color:var(--args)}
.err{max-width:360px;word-break:break-word}.err div+div{margin-top:2px}
.err code{background:var(--code-bg);border-radius:3px;padding:0 4px}
tr.look td:first-child{box-shadow:inset 3px 0 var(--warn-line)}
.keys{max-width:420px;word-break:break-all}
.muted{color:var(--muted)}
.nowrap{white-space:nowrap}
.kv{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:0;border-top:0}
.kv>div{padding:12px 16px;border-right:1px solid var(--line2)}.kv>div:last-child{border-right:0}
.kv .k{color:var(--muted);font-size:12px}.kv .v{font-size:18px;font-weight:600}.kv .s{color:var(--muted);font-size:12px}
.foot{padding:8px 16px;border-top:1px solid var(--line2);color:var(--muted);font-size:12px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:12px;padding:10px 16px 14px}
.chart-card{margin:0;border:1px solid var(--line2);border-radius:6px;padding:8px 10px 6px;background:var(--card);min-width:0}
.chart-card.drifting{border-color:var(--invalid)}
.chart-card figcaption{display:flex;flex-wrap:wrap;gap:2px 10px;align-items:baseline;justify-content:space-between;font-size:12px;margin-bottom:4px}
.chart-card figcaption span{color:var(--muted)}.chart-card figcaption .hot{color:var(--invalid)}
svg.chart{display:block;width:100%;height:auto;overflow:visible}
svg .grid{stroke:var(--line2);stroke-width:1}svg .base{stroke:var(--line);stroke-width:1}
svg .ax{font-size:9px;fill:var(--muted);font-family:system-ui,sans-serif}svg .ax.rate{fill:var(--ch-rate)}svg .ax.name{fill:var(--fg)}
svg .c-calls{fill:var(--ch-calls)}svg .c-failed{fill:var(--invalid)}
svg .l-rate{fill:none;stroke:var(--ch-rate);stroke-width:1.6;stroke-linejoin:round}svg .l-dot{fill:var(--ch-rate)}
svg .pt:hover rect{opacity:.75}
svg .marker line{stroke:var(--fg);stroke-width:1;stroke-dasharray:3 2}svg .marker text{font-size:9px;font-weight:600;fill:var(--fg);font-family:system-ui,sans-serif}
.f-valid{fill:var(--valid);background:var(--valid)}.f-InvalidJson{fill:var(--invalid);background:var(--invalid)}
.f-UnknownName{fill:var(--unknown);background:var(--unknown)}.f-SchemaMismatch{fill:var(--mismatch);background:var(--mismatch)}
.f-unvalidated{fill:var(--unval);background:var(--unval)}
.m0{fill:var(--m0);background:var(--m0)}.m1{fill:var(--m1);background:var(--m1)}.m2{fill:var(--m2);background:var(--m2)}.m3{fill:var(--m3);background:var(--m3)}
.m4{fill:var(--m4);background:var(--m4)}.m5{fill:var(--m5);background:var(--m5)}.m6{fill:var(--m6);background:var(--m6)}.m7{fill:var(--m7);background:var(--m7)}
.d-before{fill:var(--unval);background:var(--unval)}.d-after{fill:var(--accent);background:var(--accent)}
.legend{display:flex;flex-wrap:wrap;gap:2px 12px;font-size:11px;color:var(--muted);margin-top:4px}
.legend .sw{display:inline-block;width:9px;height:9px;border-radius:2px;margin-right:4px;vertical-align:-1px}
td.trend{padding-top:9px;padding-bottom:5px}svg.spark{display:block;width:96px;height:22px}
.scroll{overflow-x:auto}
.p-new,.p-regressed{color:#fff;background:var(--invalid)}.p-open{color:var(--warn);background:var(--warn-bg)}
.p-resolved{color:var(--valid);background:var(--valid-bg)}.p-muted{color:var(--unval);background:var(--unval-bg)}
.o-execution{color:var(--warn);background:var(--warn-bg)}.o-_other{color:var(--unval);background:var(--unval-bg)}
tr.pr-new td:first-child,tr.pr-regressed td:first-child{box-shadow:inset 3px 0 var(--invalid)}
td.sig{max-width:420px;word-break:break-word}td.sig code{background:var(--code-bg);border-radius:3px;padding:0 4px}
svg .change line{stroke-width:1.2;stroke-dasharray:4 2}svg .change text{stroke:none;font-size:9px;font-weight:600;font-family:system-ui,sans-serif}
.k-tool_definition{stroke:var(--m6);fill:var(--m6);background:var(--m6)}.k-tool_set{stroke:var(--m4);fill:var(--m4);background:var(--m4)}
.k-prompt{stroke:var(--m5);fill:var(--m5);background:var(--m5)}.k-model{background:var(--fg)}.k-provider{stroke:var(--m1);fill:var(--m1);background:var(--m1)}
svg .change.k-tool_definition line{stroke:var(--m6)}svg .change.k-tool_set line{stroke:var(--m4)}svg .change.k-prompt line{stroke:var(--m5)}
svg .change.k-model line{stroke:var(--fg)}svg .change.k-model text{fill:var(--fg)}svg .change.k-provider line{stroke:var(--m1)}
.hide-tool_definition .k-tool_definition,.hide-tool_set .k-tool_set,.hide-prompt .k-prompt,.hide-model g.k-model,.hide-provider .k-provider{display:none}
.marker-filter{margin-left:12px;font-weight:400;font-size:12px;color:var(--muted)}.marker-filter label{margin-left:8px;white-space:nowrap}
.marker-filter .sw{display:inline-block;width:9px;height:9px;border-radius:2px;margin:0 3px 0 2px;vertical-align:-1px}
pre.json{margin:0;padding:8px 10px;background:var(--bg);border:1px solid var(--line2);border-radius:6px;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;word-break:break-all;max-height:480px;overflow:auto}
pre.json .jk{color:var(--accent)}mark.hl{background:var(--invalid-bg);color:var(--invalid);outline:1px solid var(--invalid);border-radius:2px}.hl-why{color:var(--invalid);font-weight:600}
header a.home{color:#fff}header .crumbs{color:#d0d7de;font-size:13px}header .crumbs span+span:before{content:"›";margin:0 8px;color:#8c959f}header .crumbs a{color:#fff}
.pad{padding:12px 16px}.chart-box{max-width:760px}.pad>*+*{margin-top:8px}ul.plain{margin:0;padding:0 0 0 18px}ul.plain li+li{margin-top:4px}
.examples{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:12px;padding:12px 16px}
.example{border:1px solid var(--line2);border-radius:6px;padding:8px 10px;min-width:0}.example .meta{font-size:12px;color:var(--muted);margin-bottom:6px}
.versions td{vertical-align:top}.diff{margin:0;padding:0 0 0 18px}.diff li{font-size:13px}.diff .add{color:var(--valid)}.diff .rem{color:var(--invalid)}
@media (max-width:1000px){.cards{grid-template-columns:repeat(3,minmax(0,1fr))}.kv{grid-template-columns:repeat(2,minmax(0,1fr))}}
`;
/** Row filter, service picker, change-marker filter and an opt-in auto-refresh (remembered in localStorage). */
export const SCRIPT = `
(() => {
  const filter = document.getElementById('filter');
  const rows = Array.from(document.querySelectorAll('tr[data-filter]'));
  const apply = () => {
    const q = filter.value.trim().toLowerCase();
    for (const r of rows) r.hidden = q !== '' && !r.dataset.filter.includes(q);
  };
  if (filter) filter.addEventListener('input', apply);
  const service = document.getElementById('service');
  if (service) service.addEventListener('change', () => service.form.submit());
  // Change markers: each kind can be hidden on every chart of the page.
  for (const box of document.querySelectorAll('input[data-marker-kind]'))
    box.addEventListener('change', () => document.body.classList.toggle('hide-' + box.dataset.markerKind, !box.checked));
  const auto = document.getElementById('auto');
  if (!auto) return;
  const KEY = 'toolwatch.autorefresh';
  let timer;
  const arm = () => {
    clearTimeout(timer);
    if (auto.checked) timer = setTimeout(() => location.reload(), 30000);
  };
  try { auto.checked = localStorage.getItem(KEY) === '1'; } catch {}
  auto.addEventListener('change', () => {
    try { localStorage.setItem(KEY, auto.checked ? '1' : '0'); } catch {}
    arm();
  });
  arm();
})();
`;
//# sourceMappingURL=assets.js.map