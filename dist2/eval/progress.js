/**
 * Names and model output as one inert line: control characters (line breaks, carriage returns,
 * escape sequences) are shown as \n, \r, \x1b…, so nothing redraws the terminal or starts a new line,
 * and a leading `::` (a GitHub Actions workflow command such as `::error::`, `::add-mask::`) gets a
 * space in front, since a runner acts on a line that starts with it.
 */
export function inert(s) {
    const shown = s.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => c === '\n'
        ? '\\n'
        : c === '\r'
            ? '\\r'
            : c === '\t'
                ? '\\t'
                : c.charCodeAt(0) < 0x100
                    ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`
                    : `\\u${c.charCodeAt(0).toString(16)}`);
    return shown.startsWith('::') ? ` ${shown}` : shown;
}
const WIDTH = 30;
function describe(r) {
    const o = r.outcome;
    if (r.status !== 'ok')
        return `provider_error ${r.error?.code ?? ''}`.trim();
    if (o.kind === 'tool_calls')
        return `tool_calls ${o.calls.map((c) => inert(c.name)).join(',')}`;
    return o.kind;
}
export function createProgress(sink) {
    let errors = 0;
    let drawn = false;
    return {
        update(r, done, total) {
            if (r.status !== 'ok')
                errors++;
            if (!sink.isTTY) {
                sink.write(`[${done}/${total}] ${inert(r.label)}${r.variant === 'core' ? '' : ` [${inert(r.variant)}]`} ${inert(r.caseId)} #${r.repeat} ${describe(r)} ${r.latencyMs}ms\n`);
                return;
            }
            const filled = Math.round((done / total) * WIDTH);
            const bar = `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}`;
            sink.write(`\r${bar} ${done}/${total}  provider errors: ${errors}  ${inert(r.label.slice(0, 40))}\u001b[K`);
            drawn = true;
        },
        finish() {
            if (drawn)
                sink.write('\n');
        },
    };
}
//# sourceMappingURL=progress.js.map