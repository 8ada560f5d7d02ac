/**
 * The spans real Python frameworks exported live (../shared/fixtures/live-python/) through the
 * readers and the pipeline: every call the scripted model proposed is counted once, under the
 * outcome its offered tools give it and the model that proposed it — in export order, and reversed
 * with one span per batch (tool spans before the proposals they pair with).
 */
import { describe, expect, it } from 'vitest';
import { decodeJson } from '../../src/sources/otlp/decode.js';
import { runBatches, tally } from '../helpers/dialect-fixtures.js';
import { expectedTally, LIVE_RUNS, liveRequest } from '../helpers/live-python.js';

const runs = LIVE_RUNS.map((run) => {
  const decoded = decodeJson(JSON.stringify(liveRequest(run)));
  if (!decoded.ok || decoded.rejectedSpans > 0) throw new Error(`${run}: fixture does not decode cleanly`);
  return { run, spans: decoded.spans };
});

describe('live Python runs through the readers', () => {
  it.each(runs)('$run: every proposal counted once, with its outcome and model', async ({ run, spans }) => {
    const got = await runBatches([spans]);
    expect(new Set(got.models)).toEqual(new Set(['gpt-4o-mini']));
    expect(tally(got.calls)).toEqual(expectedTally(run));
  });

  it.each(runs)('$run: the same, reversed, one span per batch', async ({ run, spans }) => {
    const got = await runBatches([...spans].reverse().map((s) => [s]));
    expect(new Set(got.models)).toEqual(new Set(['gpt-4o-mini']));
    expect(tally(got.calls)).toEqual(expectedTally(run));
  });
});
