/**
 * The document every page of the built-in UI shares: head (the one inline style sheet and script,
 * both under the response's CSP nonce), a header, and the main column. Sub-pages (a problem, a tool)
 * get a plain header with the way back to the overview.
 */
import { SCRIPT, STYLE } from './assets.js';
import { href, html, raw } from './html.js';
/** A tiny inline icon (a data: URL, allowed by img-src), so the browser does not ask for /favicon.ico. */
const FAVICON = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='7' fill='%231a7f37'/%3E%3C/svg%3E";
// Constants of this code base (not data): inserted as they are.
const STYLE_HTML = raw(STYLE);
const SCRIPT_HTML = raw(SCRIPT);
export function documentShell(p) {
    return html `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${p.title}</title>
<link rel="icon" href="${FAVICON}">
<style nonce="${p.nonce}">${STYLE_HTML}</style>
</head>
<body>
${p.header}
<main>
${p.main}
</main>
<script nonce="${p.nonce}">${SCRIPT_HTML}</script>
</body>
</html>
`.value;
}
/** The header of a sub-page: the name, the way back (keeping the window) and where this page is. */
export function subHeader(window, crumbs) {
    return html `<header>
  <h1 title="tool calls of LLM agents"><a class="home" href="${href('/', { window })}">toolwatch</a></h1>
  <nav class="crumbs" aria-label="where">${crumbs.map((c) => html `<span>${c}</span>`)}</nav>
  <span class="spacer"></span>
  <label><input id="auto" type="checkbox"> auto-refresh 30s</label>
</header>`;
}
//# sourceMappingURL=layout.js.map