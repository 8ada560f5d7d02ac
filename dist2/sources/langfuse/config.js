/**
 * The `langfuse:` section of the config file: schema, the typed form derived from it and its checks
 * (keys present when enabled, URL, cron), run in the config phase. The loader hands in the environment
 * (LANGFUSE_BASE_URL or LANGFUSE_HOST, LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY).
 */
import cron from 'node-cron';
import { rawMapping } from '../../util/config-section.js';
import { durationMs, durationSchema as duration } from '../../util/duration.js';
const posInt = { type: 'integer', minimum: 1 };
export const langfuseFileSchema = {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
        enabled: { type: 'boolean', default: false },
        base_url: { type: 'string', minLength: 1, default: 'https://cloud.langfuse.com' },
        schedule: { type: 'string', minLength: 1, default: '* * * * *' },
        overlap: { ...duration, default: '5m' },
        lag: { ...duration, default: '1m' },
        page_size: { type: 'integer', minimum: 1, maximum: 1000, default: 500 },
        max_window: { ...duration, default: '1h' },
        initial_lookback: { ...duration, default: '1h' },
        request_timeout: { ...duration, default: '30s' },
        max_attempts: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
        service: { type: 'string', minLength: 1, default: 'langfuse' },
        max_seen: { ...posInt, default: 500_000 },
        write_scores: { type: 'boolean', default: false },
        scores_every: { ...duration, default: '10s' },
        scores_per_flush: { type: 'integer', minimum: 1, maximum: 10_000, default: 200 },
        score_max_attempts: { type: 'integer', minimum: 1, maximum: 50, default: 8 },
        // User feedback is read from these scores (Langfuse's own examples name them so); [] turns the pull off.
        feedback_scores: {
            type: 'array',
            items: { type: 'string', minLength: 1, maxLength: 200 },
            uniqueItems: true,
            default: ['user-feedback', 'user_feedback'],
        },
        // NUMERIC feedback scores: signed = -1…1 as toolwatch's own scale; unit = 0…1 (0 thumbs down, 1 thumbs up).
        feedback_numeric: { enum: ['signed', 'unit'], default: 'signed' },
    },
};
/** LANGFUSE_BASE_URL (or the older LANGFUSE_HOST) overrides `langfuse.base_url`. */
function applyLangfuseEnv(raw, env) {
    const url = env.LANGFUSE_BASE_URL || env.LANGFUSE_HOST;
    const langfuse = url ? rawMapping(raw) : undefined;
    if (!langfuse)
        return raw;
    langfuse.base_url = url;
    return langfuse;
}
export function toLangfuseConfig(f, keys, problems) {
    if (f.enabled) {
        if (!keys.publicKey)
            problems.push('langfuse.enabled: LANGFUSE_PUBLIC_KEY is not set');
        if (!keys.secretKey)
            problems.push('langfuse.enabled: LANGFUSE_SECRET_KEY is not set');
        if (!/^https?:\/\//i.test(f.base_url))
            problems.push('langfuse.base_url: must be an http(s) URL');
    }
    if (!cron.validate(f.schedule))
        problems.push(`langfuse.schedule: not a cron expression: ${JSON.stringify(f.schedule)}`);
    const cfg = {
        enabled: f.enabled,
        baseUrl: f.base_url.replace(/\/+$/, ''),
        publicKey: keys.publicKey ?? '',
        schedule: f.schedule,
        overlapMs: durationMs(f.overlap),
        lagMs: durationMs(f.lag),
        pageSize: f.page_size,
        maxWindowMs: Math.max(1000, durationMs(f.max_window)),
        initialLookbackMs: durationMs(f.initial_lookback),
        requestTimeoutMs: Math.max(100, durationMs(f.request_timeout)),
        maxAttempts: f.max_attempts,
        service: f.service,
        maxSeen: f.max_seen,
        writeScores: f.write_scores,
        scoresEveryMs: Math.max(100, durationMs(f.scores_every)),
        scoresPerFlush: f.scores_per_flush,
        scoreMaxAttempts: f.score_max_attempts,
        feedbackScores: [...f.feedback_scores],
        feedbackNumeric: f.feedback_numeric,
    };
    Object.defineProperty(cfg, 'secretKey', { value: keys.secretKey ?? '', enumerable: false });
    return cfg;
}
/** The keys are secrets: they come from the environment only, never from the file. */
export const langfuseSection = {
    key: 'langfuse',
    schema: langfuseFileSchema,
    env: {
        names: ['LANGFUSE_BASE_URL', 'LANGFUSE_HOST', 'LANGFUSE_PUBLIC_KEY', 'LANGFUSE_SECRET_KEY'],
        apply: (raw, env) => applyLangfuseEnv(raw, env),
    },
    build: (f, ctx, problems) => toLangfuseConfig(f, { publicKey: ctx.env.LANGFUSE_PUBLIC_KEY, secretKey: ctx.env.LANGFUSE_SECRET_KEY }, problems),
};
//# sourceMappingURL=config.js.map