/**
 * Optional TLS in-process (server.tls): the certificate chain and key are read from files, checked
 * as a pair in the config phase, and read again on SIGHUP (src/server/reload.ts), so a renewed
 * certificate is served without a restart.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createSecureContext } from 'node:tls';
export const tlsFileSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['cert_file', 'key_file'],
    properties: {
        cert_file: { type: 'string', minLength: 1 },
        key_file: { type: 'string', minLength: 1 },
    },
};
export function toTlsConfig(f, baseDir) {
    return { certFile: path.resolve(baseDir, f.cert_file), keyFile: path.resolve(baseDir, f.key_file) };
}
/** Reads both files and checks that they make a usable pair; the problem says which file. */
export function readTls(cfg) {
    const files = { cert: cfg.certFile, key: cfg.keyFile };
    const material = {};
    for (const [what, file] of Object.entries(files)) {
        try {
            material[what] = readFileSync(file);
        }
        catch (err) {
            return {
                ok: false,
                problem: `${what}_file ${file} cannot be read (${err.code ?? err.message})`,
            };
        }
    }
    try {
        createSecureContext(material);
    }
    catch (err) {
        return {
            ok: false,
            problem: `cert_file ${cfg.certFile} and key_file ${cfg.keyFile} are not a usable pair (${err.message})`,
        };
    }
    return { ok: true, material: material };
}
//# sourceMappingURL=tls.js.map