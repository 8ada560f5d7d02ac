import pino, { type Logger } from 'pino';

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
