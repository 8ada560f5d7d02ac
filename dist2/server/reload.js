import { readTls } from './tls.js';
export function reloadSecrets(t) {
    const out = { tokens: 'failed' };
    const tokens = t.tokens.reload();
    if (tokens.ok) {
        out.tokens = 'ok';
        t.log.info({ tokens: t.tokens.names }, 'reload: auth tokens re-read');
    }
    else
        t.log.error({ problems: tokens.problems }, 'reload: auth tokens not changed');
    t.metrics.reloads.inc({ what: 'tokens', status: out.tokens });
    if (t.tls) {
        const read = readTls(t.tls.config);
        out.tls = 'failed';
        if (read.ok) {
            try {
                t.tls.apply(read.material);
                out.tls = 'ok';
                t.log.info({ cert: t.tls.config.certFile }, 'reload: TLS certificate re-read');
            }
            catch (err) {
                t.log.error({ err }, 'reload: TLS certificate not changed');
            }
        }
        else
            t.log.error({ problem: read.problem }, 'reload: TLS certificate not changed');
        t.metrics.reloads.inc({ what: 'tls', status: out.tls });
    }
    return out;
}
//# sourceMappingURL=reload.js.map