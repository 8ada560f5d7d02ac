/**
 * The Docker image's own config (Dockerfile ENV TOOLWATCH_CONFIG → config/container.yaml): it listens
 * on every address of the container and so needs a token — read from the secret
 * /run/secrets/toolwatch_token — and without that secret it refuses to start, saying which file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, loadConfig } from '../../src/config.js';
import { imageEnv, root } from './files.js';

const env = imageEnv();
/** /app in the image is the repository root here. */
const configFile = path.join(root, env.TOOLWATCH_CONFIG!.replace(/^\/app\//, ''));

describe('the Docker image', () => {
  it('names its config, which asks for a token from /run/secrets/toolwatch_token on 0.0.0.0', () => {
    expect(env.TOOLWATCH_CONFIG).toBe('/app/config/container.yaml');
    const file = parse(readFileSync(configFile, 'utf8'));
    expect(file.auth.tokens).toEqual([
      { name: 'default', token_file: '/run/secrets/toolwatch_token', scopes: ['ingest', 'read', 'metrics', 'admin'] },
    ]);
    expect(file.auth.allow_unauthenticated).toBeUndefined();
  });

  it('without the secret: a configuration error naming the file (exit status 2)', () => {
    let err: unknown;
    try {
      loadConfig({ cwd: root, argv: ['--config', configFile], env: { ...env, TOOLWATCH_CONFIG: undefined } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      'auth.tokens.0 (default): token_file /run/secrets/toolwatch_token cannot be read (ENOENT)',
    ]);
  });

  it('with the secret mounted: listens on 0.0.0.0 with that token', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-image-'));
    try {
      const secret = path.join(dir, 'toolwatch_token');
      writeFileSync(secret, 'image-test-token-0123456789abcdef\n');
      const file = parse(readFileSync(configFile, 'utf8'));
      const auth = { tokens: file.auth.tokens.map((t: object) => ({ ...t, token_file: secret })) };
      const cfg = loadConfig({
        cwd: root,
        argv: ['--config', configFile],
        env: { ...env, TOOLWATCH_CONFIG: undefined, DATABASE_URL: path.join(dir, 'x.db') },
        overrides: { auth },
      });
      expect(cfg.server.host).toBe('0.0.0.0');
      expect(cfg.auth.tokens).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // docs/operations.md "Node flags": the allocator's settings and the node flags were
  // measured together; the image must run what `npm start` (and so the benchmark) runs.
  it('starts node as `npm start` does: the same allocator settings (GLIBC_TUNABLES) and node flags', () => {
    const start = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start as string;
    const words = start.split(/\s+/).filter(Boolean);
    const assignments = words.filter((w) => /^[A-Z_][A-Z0-9_]*=/.test(w));
    const startEnv = Object.fromEntries(
      assignments.map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
    );
    expect(Object.keys(startEnv)).toEqual(['GLIBC_TUNABLES']);
    expect(env.GLIBC_TUNABLES).toBe(startEnv.GLIBC_TUNABLES);
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const cmd = /^CMD\s+(\[.*\])\s*$/m.exec(dockerfile.slice(dockerfile.lastIndexOf('\nFROM ')));
    expect(cmd).not.toBeNull();
    expect(JSON.parse(cmd![1]!)).toEqual(words.slice(assignments.length));
  });
});
