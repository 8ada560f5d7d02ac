/**
 * The process: config → self-telemetry (when on) → services → app → listen. SIGTERM/SIGINT drain:
 * new batches get 503 (clients retry elsewhere), in-flight ones finish and commit, the store
 * closes, and the last spans are exported.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { createServices } from './services.js';
import { StoreOpenError } from './store/open-error.js';
import { reloadSecrets } from './server/reload.js';
import { readTls } from './server/tls.js';
import { startTelemetry } from './telemetry/sdk.js';
export async function main(argv, env) {
    let config;
    try {
        config = loadConfig({ argv, env });
    }
    catch (err) {
        if (err instanceof ConfigError) {
            process.stderr.write(`toolwatch: ${err.message}\n`);
            process.exitCode = 2;
            return;
        }
        throw err;
    }
    const log = createLogger(config.logLevel);
    const telemetry = await startTelemetry(config.telemetry, { log });
    let services;
    try {
        services = await createServices(config, log, telemetry.tracer ? { tracer: telemetry.tracer } : {});
    }
    catch (err) {
        // The operator's to fix, as a config problem is: one line naming the file and why, exit 2.
        if (!(err instanceof StoreOpenError))
            throw err;
        process.stderr.write(`toolwatch: ${err.message}\n`);
        process.exitCode = 2;
        await telemetry.shutdown().catch(() => undefined);
        return;
    }
    // The config phase checked the files; read again here, they are the ones served.
    const tlsConfig = config.server.tls;
    const tls = tlsConfig ? readTls(tlsConfig) : undefined;
    if (tls && !tls.ok)
        throw new Error(`server.tls changed since the config was checked: ${tls.problem}`);
    const app = await buildApp(services, tls ? { https: tls.material } : {});
    await app.listen({ host: config.server.host, port: config.server.port });
    // SIGHUP re-reads token files and the certificate (src/server/reload.ts).
    const server = app.server;
    const reload = () => reloadSecrets({
        tokens: services.tokens,
        metrics: services.metrics,
        log,
        ...(tlsConfig ? { tls: { config: tlsConfig, apply: (m) => server.setSecureContext(m) } } : {}),
    });
    process.on('SIGHUP', reload);
    log.info({ tokens: services.tokens.names, tls: Boolean(tls), cors: config.server.corsOrigins }, 'security');
    log.info({ store: services.store.kind, config: config.configPath ?? '(defaults)', tools: services.registry.size }, 'toolwatch is listening');
    let stopping = false;
    const stop = async (signal) => {
        if (stopping)
            return;
        stopping = true;
        log.info({ signal }, 'draining');
        services.draining = true;
        const timer = setTimeout(() => {
            log.error('shutdown grace period over; exiting');
            process.exit(1);
        }, config.server.shutdownGraceMs);
        timer.unref();
        await app.close();
        await services.close();
        await telemetry.shutdown().catch((err) => log.warn({ err }, 'self-telemetry: last spans not exported'));
        log.info('stopped');
        // Everything is closed and every request in flight was aborted; what may still hold the event
        // loop is a library's leftover timer (the Langfuse client does not clear its request timeout when
        // the request is aborted: up to langfuse.request_timeout). It must not decide when we exit.
        process.exit(process.exitCode ?? 0);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
}
// Node reports a module by its real path: compare against the real path of what was run, so a start
// through a symlink (a linked node_modules, a `bin` link) is still recognised as the entry point.
const isEntry = process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (isEntry) {
    main(process.argv.slice(2), process.env).catch((err) => {
        process.stderr.write(`toolwatch: ${err.stack ?? String(err)}\n`);
        process.exit(1);
    });
}
//# sourceMappingURL=main.js.map