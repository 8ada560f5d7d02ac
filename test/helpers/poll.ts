/** Asks `probe` every `intervalMs` until it answers (not undefined); after `timeoutMs` fails with what was awaited and `explain()`. */
export async function poll<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  explain: () => string,
  intervalMs = 100,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}\n${explain()}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
