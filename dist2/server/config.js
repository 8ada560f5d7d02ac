import { rawMapping } from '../util/config-section.js';
import { durationMs, durationSchema as duration } from '../util/duration.js';
import { readTls, tlsFileSchema, toTlsConfig } from './tls.js';
export const serverFileSchema = {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
        host: { type: 'string', minLength: 1, default: '127.0.0.1' },
        port: { type: 'integer', minimum: 0, maximum: 65535, default: 4318 },
        shutdown_grace: { ...duration, default: '10s' },
        tls: tlsFileSchema,
        cors_origins: {
            type: 'array',
            default: [],
            uniqueItems: true,
            items: { type: 'string', pattern: '^(\\*|https?://[^/\\s*]+)$' },
        },
        request_timeout: { ...duration, default: '60s' },
        headers_timeout: { ...duration, default: '10s' },
        connection_timeout: { ...duration, default: '2m' },
    },
};
export const serverSection = {
    key: 'server',
    schema: serverFileSchema,
    env: {
        names: ['HOST', 'PORT'],
        apply(raw, env, problems) {
            const server = rawMapping(raw);
            if (!server)
                return raw;
            if (env.HOST)
                server.host = env.HOST;
            if (env.PORT !== undefined && env.PORT !== '') {
                const port = Number(env.PORT);
                if (!Number.isInteger(port) || port < 0 || port > 65535)
                    problems.push(`PORT: must be an integer from 0 to 65535, got ${JSON.stringify(env.PORT)}`);
                else
                    server.port = port;
            }
            return server;
        },
    },
    build(f, ctx, problems) {
        const tls = f.tls ? toTlsConfig(f.tls, ctx.baseDir) : undefined;
        if (tls) {
            const read = readTls(tls);
            if (!read.ok)
                problems.push(`server.tls: ${read.problem}`);
        }
        // Node refuses a server whose header deadline is past its request deadline.
        const request = durationMs(f.request_timeout);
        if (durationMs(f.headers_timeout) < 1)
            problems.push('server.headers_timeout: must be at least 1ms');
        else if (request > 0 && durationMs(f.headers_timeout) > request)
            problems.push('server.headers_timeout: must not be longer than server.request_timeout');
        return {
            host: f.host,
            port: f.port,
            shutdownGraceMs: durationMs(f.shutdown_grace),
            ...(tls ? { tls } : {}),
            corsOrigins: [...f.cors_origins],
            requestTimeoutMs: durationMs(f.request_timeout),
            headersTimeoutMs: durationMs(f.headers_timeout),
            connectionTimeoutMs: durationMs(f.connection_timeout),
        };
    },
};
//# sourceMappingURL=config.js.map