/**
 * The `auth:` section in the config phase: tokens from files or the environment (never the file
 * itself), every problem reported at once, the loopback-only default, and a config that prints no
 * token however it is printed.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/temp-dir.js';
import { isLoopback } from '../../src/auth/config.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { newTokenValue } from './tokens.js';

function load(
  auth: unknown,
  opts: { env?: Record<string, string>; host?: string; files?: Record<string, string> } = {},
) {
  const dir = tempDir('toolwatch-authcfg-');
  for (const [name, text] of Object.entries(opts.files ?? {})) writeFileSync(path.join(dir, name), text);
  return loadConfig({ cwd: dir, env: opts.env ?? {}, overrides: { auth, server: { host: opts.host ?? '127.0.0.1' } } });
}

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

afterAll(removeTempDirs);

describe('auth config', () => {
  const fileToken = newTokenValue();
  const envToken = newTokenValue();

  it('reads a token from a file (relative to the config) or a variable, and keeps neither value in the config', () => {
    const cfg = load(
      {
        tokens: [
          { name: 'agents', token_file: 'agents.token', scopes: ['ingest'], services: ['checkout-*'] },
          { name: 'prometheus', token_env: 'TW_METRICS_TOKEN', scopes: ['metrics'] },
        ],
      },
      { env: { TW_METRICS_TOKEN: envToken }, files: { 'agents.token': `${fileToken}\n` }, host: '0.0.0.0' },
    );
    expect(cfg.auth.tokens.map((t) => [t.name, t.source.kind, t.scopes, t.services])).toEqual([
      ['agents', 'file', ['ingest'], ['checkout-*']],
      ['prometheus', 'env', ['metrics'], undefined],
    ]);
    expect(cfg.auth.tokens[0]!.source).toMatchObject({ kind: 'file', path: expect.stringMatching(/agents\.token$/) });
    for (const printed of [
      JSON.stringify(cfg),
      inspect(cfg, { depth: 20 }),
      String(cfg.auth.tokens[1]!.source.kind === 'env' && cfg.auth.tokens[1]!.source.value),
    ]) {
      expect(printed).not.toContain(fileToken);
      expect(printed).not.toContain(envToken);
    }
    expect(JSON.stringify(cfg.auth.tokens[1])).toContain('"variable":"TW_METRICS_TOKEN","value":"[secret]"');
  });

  it('reports every token problem at once, with its path and name', () => {
    const found = problems(() =>
      load(
        {
          tokens: [
            { name: 'both', token_file: 'a.token', token_env: 'A', scopes: ['read'] },
            { name: 'neither', scopes: ['read'] },
            { name: 'missing-file', token_file: 'nope.token', scopes: ['read'] },
            { name: 'unset-env', token_env: 'TW_UNSET', scopes: ['read'] },
            { name: 'short', token_file: 'short.token', scopes: ['read'] },
            { name: 'spaces', token_file: 'spaces.token', scopes: ['read'] },
            { name: 'dup', token_file: 'a.token', scopes: ['read'] },
            { name: 'dup', token_file: 'b.token', scopes: ['read'] },
            { name: 'same-value', token_file: 'a.token', scopes: ['ingest'] },
            { name: 'metrics-per-team', token_file: 'c.token', scopes: ['metrics'], services: ['a'] },
          ],
        },
        {
          files: {
            'a.token': fileToken,
            'b.token': newTokenValue(),
            'c.token': newTokenValue(),
            'short.token': 'abc\n',
            'spaces.token': 'a token with spaces in it',
          },
        },
      ),
    ).join('\n');
    expect(found).toContain('auth.tokens.0 (both): set exactly one of token_file and token_env');
    expect(found).toContain('auth.tokens.1 (neither): set exactly one of token_file and token_env');
    expect(found).toMatch(/auth\.tokens\.2 \(missing-file\): token_file \S+nope\.token cannot be read \(ENOENT\)/);
    expect(found).toContain('auth.tokens.3 (unset-env): token_env TW_UNSET is not set');
    expect(found).toMatch(/auth\.tokens\.4 \(short\): token_file \S+: the token has 3 characters; use at least 16/);
    expect(found).toContain('auth.tokens.5 (spaces)');
    expect(found).toContain('auth.tokens.7 (dup): the name is used by another token');
    expect(found).toContain('auth.tokens.8 (same-value): the same token as dup');
    expect(found).toContain('auth.tokens.9 (metrics-per-team): services restricts ingest and read only');
    // No problem message quotes a token.
    expect(found).not.toContain(fileToken);
  });

  it('the shape is checked first: scopes, names', () => {
    const found = problems(() =>
      load({
        tokens: [
          { name: 'no-scopes', token_env: 'X', scopes: [] },
          { name: 'bad scope', token_env: 'X', scopes: ['write'], token: 'inline' },
        ],
      }),
    ).join('\n');
    expect(found).toContain('auth.tokens.0.scopes: must NOT have fewer than 1 items');
    expect(found).toContain('auth.tokens.1.scopes.0: must be one of ingest, read, metrics, admin');
    expect(found).toContain('auth.tokens.1.name: must match pattern');
    // A token written into the file itself is an unknown key: the file holds references only.
    expect(found).toContain('auth.tokens.1.token: unknown key');
  });

  it('no tokens on a non-loopback address: refused, saying what to set; allowed on loopback or with the escape hatch', () => {
    const found = problems(() => load({}, { host: '0.0.0.0' }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^server\.host: 0\.0\.0\.0 is reachable from other machines, and auth\.tokens is empty/);
    expect(found[0]).toContain('Set auth.tokens');
    expect(found[0]).toContain('auth.allow_unauthenticated: true');
    expect(load({}, { host: '127.0.0.1' }).auth.tokens).toEqual([]);
    expect(load({ allow_unauthenticated: true }, { host: '0.0.0.0' }).auth.allowUnauthenticated).toBe(true);
  });

  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['toolwatch.internal', false],
    ['128.0.0.1', false],
  ])('isLoopback(%s) = %s', (host, want) => {
    expect(isLoopback(host)).toBe(want);
  });

  it('server.tls must name a readable certificate and key that match; cors_origins must be origins', () => {
    const dir = tempDir('toolwatch-tlscfg-');
    writeFileSync(path.join(dir, 'cert.pem'), 'not a certificate');
    const found = problems(() =>
      loadConfig({
        cwd: dir,
        env: {},
        overrides: { server: { tls: { cert_file: 'cert.pem', key_file: 'missing.key' } } },
      }),
    ).join('\n');
    expect(found).toMatch(/server\.tls: key_file \S+missing\.key cannot be read \(ENOENT\)/);
    writeFileSync(path.join(dir, 'key.pem'), 'not a key either');
    const pair = problems(() =>
      loadConfig({ cwd: dir, env: {}, overrides: { server: { tls: { cert_file: 'cert.pem', key_file: 'key.pem' } } } }),
    ).join('\n');
    expect(pair).toMatch(/server\.tls: cert_file \S+cert\.pem and key_file \S+key\.pem are not a usable pair/);
    const cors = problems(() =>
      loadConfig({
        cwd: dir,
        env: {},
        overrides: {
          server: { cors_origins: ['https://app.example.com', 'https://x.example/path', '*', 'http://localhost:5173'] },
        },
      }),
    ).join('\n');
    expect(cors).toBe('server.cors_origins.1: must match pattern "^(\\*|https?://[^/\\s*]+)$"');
  });
});
