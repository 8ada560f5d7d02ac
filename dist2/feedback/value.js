/**
 * The feedback vocabulary: one value in [-1, 1] per trace and source, whatever form it came in
 * (a number, thumbs words, a boolean). Pure.
 */
export const BUCKETS = ['negative', 'neutral', 'positive'];
export function bucketOf(value) {
    return value < 0 ? 'negative' : value > 0 ? 'positive' : 'neutral';
}
// Thumbs and their usual spellings, case-insensitive; a thumbs-up/down emoji with or without a skin tone.
const WORDS = {
    up: 1,
    'thumbs-up': 1,
    thumbs_up: 1,
    thumbsup: 1,
    positive: 1,
    good: 1,
    like: 1,
    '+1': 1,
    down: -1,
    'thumbs-down': -1,
    thumbs_down: -1,
    thumbsdown: -1,
    negative: -1,
    bad: -1,
    dislike: -1,
    '-1': -1,
    neutral: 0,
};
/**
 * A feedback value as senders write it: a number in [-1, 1], a boolean (false = thumbs down), or a
 * word from the thumbs vocabulary ("up"/"down", "thumbs_up", "positive"/"negative"/"neutral",
 * "good"/"bad", "like"/"dislike", 👍/👎). Undefined when it is none of these.
 */
export function parseFeedbackValue(v) {
    if (typeof v === 'boolean')
        return v ? 1 : -1;
    if (typeof v === 'number')
        return Number.isFinite(v) && v >= -1 && v <= 1 ? v : undefined;
    if (typeof v !== 'string')
        return undefined;
    const s = v.trim().toLowerCase();
    if (s.startsWith('👍'))
        return 1;
    if (s.startsWith('👎'))
        return -1;
    if (s in WORDS)
        return WORDS[s];
    return undefined;
}
/** What a value of the API looks like, for error messages. */
export const VALUE_HELP = 'a number from -1 to 1, true/false, or "up"/"down" (also thumbs_up, positive, negative, neutral, good, bad, 👍, 👎)';
/** OTLP trace ids are hex; they are stored lower-case so every path agrees. Other ids are kept as written. */
export function normalizeTraceId(id) {
    return /^[0-9A-Fa-f]{32}$/.test(id) ? id.toLowerCase() : id;
}
//# sourceMappingURL=value.js.map