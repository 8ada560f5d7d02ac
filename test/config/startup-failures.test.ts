/**
 * Start-up refusals (issue 8, Low 15 and 16): an invalid configuration leaves nothing behind — no
 * SQLite file created by the refused start, whether it is refused in the config phase or after the
 * store opened — and a zero judge idle time is refused with its path.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuleKind } from '../../src/alerts/rules.js';
import { loadConfig } from '../../src/config.js';
import { builtinKinds } from '../../src/kinds.js';
import { createLogger } from '../../src/logger.js';
import { main } from '../../src/main.js';
import { createServices } from '../../src/services.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'toolwatch-startup-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('a refused start leaves nothing behind', () => {
  it('an alert rule refused by the config phase: exit 2, no database file', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'data', 'toolwatch.db');
    const file = path.join(dir, 'toolwatch.yaml');
    writeFileSync(
      file,
      `database_url: ${db}\nalerts:\n  rules:\n    - name: r\n      kind: error_rate\n      threshold: 5\n`,
    );
    const prevExit = process.exitCode;
    const stderr = process.stderr.write;
    let said = '';
    process.stderr.write = ((s: string) => ((said += s), true)) as typeof process.stderr.write;
    try {
      await main(['--config', file], { LOG_LEVEL: 'silent' });
    } finally {
      process.stderr.write = stderr;
    }
    expect(process.exitCode).toBe(2);
    process.exitCode = prevExit;
    expect(said).toMatch(/alerts\.rules\.0\.threshold/);
    expect(existsSync(db)).toBe(false);
    expect(existsSync(`${db}-wal`)).toBe(false);
    expect(existsSync(path.dirname(db))).toBe(false);
  });

  /**
   * A start refused after the store opened: every configuration problem is found before (above), so
   * here the config was checked against a rule kind this process does not register.
   */
  async function refusedAfterOpen(db: string): Promise<unknown> {
    const kinds = builtinKinds();
    const kind: RuleKind<Record<string, never>, number> = {
      schema: { type: 'object', additionalProperties: false, properties: {} },
      load: async () => 0,
      evaluate: () => [],
    };
    kinds.rules.register('elsewhere_only', kind);
    const cfg = loadConfig({
      cwd: path.dirname(db),
      env: {},
      kinds,
      overrides: { database_url: db, log_level: 'silent', alerts: { rules: [{ name: 'r', kind: 'elsewhere_only' }] } },
    });
    return createServices(cfg, createLogger('silent')).then(
      (s) => s.close(),
      (err: unknown) => err,
    );
  }

  it('a start refused after the store opened removes the database file (and folders) it created', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'new', 'toolwatch.db');
    expect(await refusedAfterOpen(db)).toBeInstanceOf(Error);
    expect(existsSync(db)).toBe(false);
    expect(existsSync(`${db}-wal`)).toBe(false);
    expect(existsSync(path.dirname(db))).toBe(false);
    expect(existsSync(dir)).toBe(true);
  });

  it('an existing database is kept when a later start is refused', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'toolwatch.db');
    const ok = loadConfig({ cwd: dir, env: {}, overrides: { database_url: db, log_level: 'silent' } });
    await (await createServices(ok, createLogger('silent'))).close();
    expect(existsSync(db)).toBe(true);
    expect(await refusedAfterOpen(db)).toBeInstanceOf(Error);
    expect(existsSync(db)).toBe(true);
  });
});

describe('judge.idle', () => {
  it('0s is refused with its path', () => {
    expect(() => loadConfig({ cwd: tempDir(), env: {}, overrides: { judge: { idle: '0s' } } })).toThrow(
      /judge\.idle: must be longer than 0s/,
    );
    expect(() => loadConfig({ cwd: tempDir(), env: {}, overrides: { judge: { idle: '0.0m' } } })).toThrow(
      /judge\.idle/,
    );
    expect(loadConfig({ cwd: tempDir(), env: {}, overrides: { judge: { idle: '1s' } } }).judge.idleMs).toBe(1000);
  });
});

describe('dedupe.pending_lease', () => {
  it('is 30s by default; under a second is refused with its path', () => {
    expect(loadConfig({ cwd: tempDir(), env: {} }).dedupe.pendingLeaseMs).toBe(30_000);
    expect(() => loadConfig({ cwd: tempDir(), env: {}, overrides: { dedupe: { pending_lease: '500ms' } } })).toThrow(
      /dedupe\.pending_lease: must be at least 1s/,
    );
    const two = loadConfig({ cwd: tempDir(), env: {}, overrides: { dedupe: { pending_lease: '2s' } } });
    expect(two.dedupe.pendingLeaseMs).toBe(2000);
  });
});
