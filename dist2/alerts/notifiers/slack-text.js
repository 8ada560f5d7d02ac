/** Slack's text rules, shared by the notifier's layouts: escaping, code spans, cutting to a length. */
import { replaceControl } from '../../util/control-chars.js';
/**
 * Slack's documented escaping for any text it parses (mrkdwn blocks and the fallback `text` alike):
 * &, < and > become entities, so `<!channel>`, `<@U…>` and `<http://x|label>` arrive as text.
 */
export function slackEscape(s) {
    return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
/**
 * Span-controlled text inside a code span or block. Slack has no escape for a backtick, so one in
 * the text would close the span and what follows would be formatted (or mention someone): each
 * becomes U+02CB (ˋ, a look-alike). Line breaks and other control characters end an inline span
 * too and become spaces (a code block keeps its line breaks).
 */
export function slackCode(s, block = false) {
    const flat = replaceControl(s, { keepNewlines: block });
    return slackEscape(flat.replace(/`/g, '\u02cb'));
}
/** Cut to a length without leaving half an entity (`&am`) or half a surrogate pair at the end. */
export function clip(s, max) {
    if (s.length <= max)
        return s;
    let out = s.slice(0, max);
    out = out.replace(/&[a-z]{0,3}$/, '');
    return /[\ud800-\udbff]$/.test(out) ? out.slice(0, -1) : out;
}
//# sourceMappingURL=slack-text.js.map