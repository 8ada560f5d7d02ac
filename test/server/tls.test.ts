/**
 * server.tls: HTTPS in-process with a certificate made here by Debian's openssl, the real
 * OpenTelemetry exporter exporting over https (trusting that certificate), and a renewed
 * certificate served after the reload SIGHUP triggers — without a restart.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:https';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { reloadSecrets } from '../../src/server/reload.js';
import { readTls } from '../../src/server/tls.js';
import { agentCalls } from '../alerts/helpers.js';
import { bearer, eventually, tokenConfig, type TestToken } from '../auth/tokens.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient } from '../helpers/otel.js';

/** A self-signed certificate for 127.0.0.1 and localhost (cert.pem, key.pem in `dir`), valid one day. */
function makeCertificate(dir: string, cn: string): void {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      `/CN=${cn}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'pipe' },
  );
}

/** The certificate a fresh TLS connection is served, as its fingerprint. */
function servedFingerprint(port: number, ca: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      const fp = s.getPeerX509Certificate()?.fingerprint256 ?? '';
      s.end();
      resolve(fp);
    });
    s.once('error', reject);
  });
}

describe('HTTPS in-process (server.tls)', () => {
  let dir: string;
  let tw: Harness;
  let token: TestToken;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-tls-'));
    makeCertificate(dir, 'toolwatch-test-1');
    const made = tokenConfig(dir, { agent: { scopes: ['ingest', 'read', 'metrics'] } });
    token = made.tokens.agent!;
    const tls = { cert_file: path.join(dir, 'cert.pem'), key_file: path.join(dir, 'key.pem') };
    // The config phase checks the pair, as main.ts's start would.
    const cfg = loadConfig({ cwd: dir, env: {}, overrides: { server: { tls } } });
    const read = readTls(cfg.server.tls!);
    if (!read.ok) throw new Error(read.problem);
    tw = await startToolwatch({
      config: { auth: made.auth, server: { host: '127.0.0.1', port: 0, tls } },
      app: { https: read.material },
    });
    port = Number(new URL(tw.url).port);
  });
  afterAll(async () => {
    await tw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens on https; a client that does not trust the certificate cannot connect', async () => {
    expect(tw.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    await expect(fetch(`${tw.url}/healthz`)).rejects.toThrow();
  });

  it('the real OTel exporter exports over https with its CA and token', async () => {
    const client = otelClient(tw.url, {
      service: 'tls-agent',
      ca: readFileSync(path.join(dir, 'cert.pem')),
      headers: bearer(token),
    });
    try {
      await agentCalls(client, { valid: 2, mismatch: 1 });
      await eventually(
        async () => metricValue(await tw.metrics(), 'toolwatch_tool_calls_total', { service: 'tls-agent' }) === 3,
      );
      expect(
        metricValue(await tw.metrics(), 'toolwatch_tool_calls_total', {
          service: 'tls-agent',
          outcome: 'SchemaMismatch',
        }),
      ).toBe(1);
    } finally {
      await client.shutdown();
    }
  });

  it('a renewed certificate is served after the reload, without a restart', async () => {
    const first = readFileSync(path.join(dir, 'cert.pem'));
    expect(await servedFingerprint(port, first)).toBe(new X509Certificate(first).fingerprint256);
    makeCertificate(dir, 'toolwatch-test-2');
    const second = readFileSync(path.join(dir, 'cert.pem'));
    const server = tw.app.server as Server;
    const result = reloadSecrets({
      tokens: tw.services.tokens,
      metrics: tw.services.metrics,
      log: createLogger('silent'),
      tls: { config: tw.services.config.server.tls!, apply: (m) => server.setSecureContext(m) },
    });
    expect(result).toEqual({ tokens: 'ok', tls: 'ok' });
    expect(await servedFingerprint(port, second)).toBe(new X509Certificate(second).fingerprint256);
    expect(new X509Certificate(second).subject).toContain('toolwatch-test-2');
    expect(metricValue(await tw.metrics(), 'toolwatch_reloads_total', { what: 'tls', status: 'ok' })).toBe(1);
  });

  it('a broken certificate file on reload keeps the one in use', async () => {
    const inUse = readFileSync(path.join(dir, 'cert.pem'));
    const server = tw.app.server as Server;
    execFileSync('sh', ['-c', `echo broken > ${path.join(dir, 'key.pem')}`]);
    const result = reloadSecrets({
      tokens: tw.services.tokens,
      metrics: tw.services.metrics,
      log: createLogger('silent'),
      tls: { config: tw.services.config.server.tls!, apply: (m) => server.setSecureContext(m) },
    });
    expect(result.tls).toBe('failed');
    expect(await servedFingerprint(port, inUse)).toBe(new X509Certificate(inUse).fingerprint256);
  });
});
