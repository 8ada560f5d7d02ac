import pino, { type Logger } from 'pino';
import type { ConfigSection } from './util/config-section.js';

/** Secrets that may ride along in headers or config never reach the log. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.webhookUrl',
  '*.apiKey',
  '*.secretKey',
  '*.password',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } });
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The `log_level` key (LOG_LEVEL overrides it). */
export const logLevelSection: ConfigSection<(typeof LOG_LEVELS)[number], string> = {
  key: 'log_level',
  schema: { enum: LOG_LEVELS, default: 'info' },
  env: { names: ['LOG_LEVEL'], apply: (raw, env) => env.LOG_LEVEL || raw },
  build: (level) => level,
};
