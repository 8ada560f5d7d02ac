/** The `check` section (src/check/budget.ts): its defaults, and every bad value reported at once. */
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHECK_LIMITS } from '../../src/check/budget.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { removeTempDirs, tempDir } from '../helpers/temp-dir.js';

afterAll(removeTempDirs);

const load = (check: Record<string, unknown>) =>
  loadConfig({ cwd: tempDir('toolwatch-config-'), env: {}, overrides: { check } });

const problemsOf = (check: Record<string, unknown>): string[] => {
  try {
    load(check);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('config: check', () => {
  it('defaults to the bounds the README documents, frozen', () => {
    const cfg = load({});
    expect(cfg.check).toEqual({
      maxArgumentBytes: 1_048_576,
      maxArgumentDepth: 64,
      compileBytesPerBatch: 65_536,
      compileBytesPerTokenPerMinute: 524_288,
      validationTimePerBatchMs: 500,
    });
    expect(cfg.check).toEqual(DEFAULT_CHECK_LIMITS);
    expect(Object.isFrozen(cfg.check)).toBe(true);
  });

  it('takes every key', () => {
    const cfg = load({
      max_argument_bytes: 2048,
      max_argument_depth: 10,
      compile_bytes_per_batch: 1000,
      compile_bytes_per_token_per_minute: 1000,
      validation_time_per_batch: '1s',
    });
    expect(cfg.check).toEqual({
      maxArgumentBytes: 2048,
      maxArgumentDepth: 10,
      compileBytesPerBatch: 1000,
      compileBytesPerTokenPerMinute: 1000,
      validationTimePerBatchMs: 1000,
    });
  });

  it.each([
    [{ max_argument_bytes: 0 }, 'check.max_argument_bytes'],
    [{ max_argument_depth: 5000 }, 'check.max_argument_depth'],
    [{ max_argument_depth: 1 }, 'check.max_argument_depth'],
    [{ compile_bytes_per_batch: 'lots' }, 'check.compile_bytes_per_batch'],
    [{ validation_time_per_batch: 200 }, 'check.validation_time_per_batch'],
    [{ compile_budget: 1 }, 'check.compile_budget: unknown key'],
    // A schema the batch bound admits but the token's bucket can never hold would never compile.
    [
      { compile_bytes_per_batch: 2000, compile_bytes_per_token_per_minute: 1000 },
      'check.compile_bytes_per_token_per_minute: must be at least check.compile_bytes_per_batch',
    ],
  ])('%j is refused: %s', (check, problem) => {
    expect(problemsOf(check).join('\n')).toContain(problem);
  });
});
