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
} as const;

export interface TlsConfig {
  /** PEM certificate (chain), absolute path. */
  certFile: string;
  /** PEM private key, absolute path. */
  keyFile: string;
}

export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
}

export function toTlsConfig(f: { cert_file: string; key_file: string }, baseDir: string): TlsConfig {
  return { certFile: path.resolve(baseDir, f.cert_file), keyFile: path.resolve(baseDir, f.key_file) };
}

/** Reads both files and checks that they make a usable pair; the problem says which file. */
export function readTls(cfg: TlsConfig): { ok: true; material: TlsMaterial } | { ok: false; problem: string } {
  const files = { cert: cfg.certFile, key: cfg.keyFile } as const;
  const material: Partial<TlsMaterial> = {};
  for (const [what, file] of Object.entries(files) as [keyof TlsMaterial, string][]) {
    try {
      material[what] = readFileSync(file);
    } catch (err) {
      return {
        ok: false,
        problem: `${what}_file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      };
    }
  }
  try {
    createSecureContext(material as TlsMaterial);
  } catch (err) {
    return {
      ok: false,
      problem: `cert_file ${cfg.certFile} and key_file ${cfg.keyFile} are not a usable pair (${(err as Error).message})`,
    };
  }
  return { ok: true, material: material as TlsMaterial };
}
