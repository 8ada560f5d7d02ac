/**
 * Control characters in text that came from outside (span names, model output) and is about to be
 * shown somewhere that acts on them: a terminal (escape sequences, carriage returns redrawing a
 * line), a log a CI runner parses line by line, a chat message's code span.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is searched for
const ALL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is searched for
const BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;
/** Every C0/C1 control character, DEL and the Unicode line/paragraph separators become `with`. */
export function replaceControl(s, opts = {}) {
    return s.replace(opts.keepNewlines ? BUT_NEWLINE : ALL, opts.with ?? ' ');
}
//# sourceMappingURL=control-chars.js.map