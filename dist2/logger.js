import pino from 'pino';
/** Secrets that may ride along in headers or config never reach the log. */
const REDACT = [
    'req.headers.authorization',
    'req.headers.cookie',
    '*.webhookUrl',
    '*.apiKey',
    '*.secretKey',
    '*.password',
];
export function createLogger(level) {
    return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } });
}
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** The `log_level` key (LOG_LEVEL overrides it). */
export const logLevelSection = {
    key: 'log_level',
    schema: { enum: LOG_LEVELS, default: 'info' },
    env: { names: ['LOG_LEVEL'], apply: (raw, env) => env.LOG_LEVEL || raw },
    build: (level) => level,
};
//# sourceMappingURL=logger.js.map