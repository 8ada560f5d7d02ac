/**
 * SIGHUP: re-read what rotates without a restart — the token files (auth.tokens[].token_file) and the
 * TLS certificate and key (server.tls). Each part is all or nothing: when anything cannot be read,
 * what is in force stays, the problem is logged and `toolwatch_reloads_total{status="failed"}` counts
 * it. Environment-sourced tokens cannot change in a running process and stay as they are.
 */
import type { Logger } from 'pino';
import type { TokenSet } from '../auth/tokens.js';
import type { Metrics } from '../metrics/registry.js';
import { readTls, type TlsConfig, type TlsMaterial } from './tls.js';

export interface ReloadTargets {
  tokens: TokenSet;
  /** The HTTPS server's certificate, when server.tls is set. */
  tls?: { config: TlsConfig; apply(material: TlsMaterial): void };
  metrics: Pick<Metrics, 'reloads'>;
  log: Logger;
}

export interface ReloadResult {
  tokens: 'ok' | 'failed';
  tls?: 'ok' | 'failed';
}

export function reloadSecrets(t: ReloadTargets): ReloadResult {
  const out: ReloadResult = { tokens: 'failed' };
  const tokens = t.tokens.reload();
  if (tokens.ok) {
    out.tokens = 'ok';
    t.log.info({ tokens: t.tokens.names }, 'reload: auth tokens re-read');
  } else t.log.error({ problems: tokens.problems }, 'reload: auth tokens not changed');
  t.metrics.reloads.inc({ what: 'tokens', status: out.tokens });
  if (t.tls) {
    const read = readTls(t.tls.config);
    out.tls = 'failed';
    if (read.ok) {
      try {
        t.tls.apply(read.material);
        out.tls = 'ok';
        t.log.info({ cert: t.tls.config.certFile }, 'reload: TLS certificate re-read');
      } catch (err) {
        t.log.error({ err }, 'reload: TLS certificate not changed');
      }
    } else t.log.error({ problem: read.problem }, 'reload: TLS certificate not changed');
    t.metrics.reloads.inc({ what: 'tls', status: out.tls });
  }
  return out;
}
