/**
 * The page's only style sheet and script, inlined (no external assets: the page works offline and
 * under `default-src 'none'`). Both carry the per-response CSP nonce; no inline style attributes or
 * event-handler attributes are used anywhere, so the policy needs no 'unsafe-inline'.
 */

/** Error-rate bars come in 5 % steps (.bar-0 … .bar-20): widths as classes, not style attributes. */
const barSteps = Array.from({ length: 21 }, (_, i) => `.bar-${i}>i{width:${i * 5}%}`).join('');

export const STYLE = `
:root{--fg:#1f2328;--muted:#656d76;--line:#d8dee4;--bg:#f6f8fa;--card:#fff;--accent:#0969da;
--valid:#1a7f37;--valid-bg:#dafbe1;--invalid:#cf222e;--invalid-bg:#ffebe9;--unknown:#8250df;--unknown-bg:#fbefff;
--mismatch:#bc4c00;--mismatch-bg:#fff1e5;--unval:#57606a;--unval-bg:#eaeef2;--warn:#9a6700;--warn-bg:#fff8c5}
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
section>h2 small{font-weight:400;color:var(--muted);font-size:12px}
section>h2 .right{margin-left:auto;font-weight:400;font-size:12px}
.empty{padding:16px;color:var(--muted)}
.cards{display:grid;grid-template-columns:repeat(6,minmax(0,1fr));gap:12px;margin-bottom:20px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px 14px}
.card .k{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.4px}
.card .v{font-size:24px;font-weight:600;margin-top:2px;font-variant-numeric:tabular-nums}
.card .s{color:var(--muted);font-size:12px}
.card.bad{border-color:var(--invalid);background:var(--invalid-bg)}.card.bad .v{color:var(--invalid)}
.card.warn{border-color:#d4a72c;background:var(--warn-bg)}.card.warn .v{color:var(--warn)}
table{width:100%;border-collapse:collapse}
th,td{padding:7px 10px;text-align:left;vertical-align:top;border-bottom:1px solid #eaeef2}
th{font-size:12px;font-weight:600;color:var(--muted);background:#fafbfc;white-space:nowrap}
tr:last-child td{border-bottom:0}
tbody tr:hover{background:#f6f8fa}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.zero{color:#afb8c1}
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
.bar{display:inline-block;width:80px;height:6px;border-radius:3px;background:#eaeef2;overflow:hidden}.bar>i{display:block;height:100%;background:var(--valid)}
${barSteps}
.r-warn b{color:var(--warn)}.r-warn .bar>i{background:#d4a72c}
.r-high b{color:var(--invalid)}.r-high .bar>i{background:var(--invalid)}
tr.r-high td:first-child{box-shadow:inset 3px 0 var(--invalid)}
.tag{display:inline-block;font-size:11px;padding:0 6px;border-radius:4px;background:var(--unknown-bg);color:var(--unknown);margin-left:4px}
.args{max-width:340px;word-break:break-all;color:#424a53}
.err{max-width:360px;word-break:break-word}.err div+div{margin-top:2px}
.err code{background:#eaeef2;border-radius:3px;padding:0 4px}
tr.look td:first-child{box-shadow:inset 3px 0 #d4a72c}
.keys{max-width:420px;word-break:break-all}
.muted{color:var(--muted)}
.nowrap{white-space:nowrap}
.kv{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:0;border-top:0}
.kv>div{padding:12px 16px;border-right:1px solid #eaeef2}.kv>div:last-child{border-right:0}
.kv .k{color:var(--muted);font-size:12px}.kv .v{font-size:18px;font-weight:600}.kv .s{color:var(--muted);font-size:12px}
.foot{padding:8px 16px;border-top:1px solid #eaeef2;color:var(--muted);font-size:12px}
@media (max-width:1000px){.cards{grid-template-columns:repeat(3,minmax(0,1fr))}.kv{grid-template-columns:repeat(2,minmax(0,1fr))}}
`;

/** Row filter, service picker and an opt-in auto-refresh (remembered in localStorage). */
export const SCRIPT = `
(() => {
  const filter = document.getElementById('filter');
  const rows = Array.from(document.querySelectorAll('tr[data-filter]'));
  const apply = () => {
    const q = filter.value.trim().toLowerCase();
    for (const r of rows) r.hidden = q !== '' && !r.dataset.filter.includes(q);
  };
  filter.addEventListener('input', apply);
  const service = document.getElementById('service');
  service.addEventListener('change', () => service.form.submit());
  const auto = document.getElementById('auto');
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
