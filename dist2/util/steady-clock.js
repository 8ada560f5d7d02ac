export function steadyClock(wall = Date.now, monotonic = () => performance.now()) {
    const wallAtStart = wall();
    const monoAtStart = monotonic();
    // Whole milliseconds, as Date.now gives them: due times are stored in BIGINT columns.
    return () => wallAtStart + Math.floor(monotonic() - monoAtStart);
}
//# sourceMappingURL=steady-clock.js.map