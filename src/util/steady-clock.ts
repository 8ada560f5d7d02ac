/**
 * A clock for durations, TTLs and grace periods that a wall-clock jump does not move: it reads like
 * wall time in milliseconds (it starts at the wall clock's reading) but advances with the monotonic
 * clock (`performance.now`), so an NTP step or an operator setting the time ±2 h neither expires a
 * dedupe memory at once nor holds a waiting call for two hours. Stored times (counts' minutes,
 * failure records, leases shared with other processes) stay on the wall clock.
 */
export type Clock = () => number;

export function steadyClock(wall: Clock = Date.now, monotonic: Clock = () => performance.now()): Clock {
  const wallAtStart = wall();
  const monoAtStart = monotonic();
  // Whole milliseconds, as Date.now gives them: due times are stored in BIGINT columns.
  return () => wallAtStart + Math.floor(monotonic() - monoAtStart);
}
