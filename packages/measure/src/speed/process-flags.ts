/**
 * V8 flags for a process that measures, for its entry point to set before it starts a measuring thread
 * (`node` flags, or setFlagsFromString first thing in main: both reach threads started after them).
 * `--no-memory-reducer`: the reducer shrinks a heap that looks idle with mark-compacts (a 5-10 ms pause
 * and as much marking) some 8 s into a quiet run; at one stream they were the run's latest timestamps,
 * and a measuring thread lives for one run with no idle heap to give back. `--expose-gc`: the warm-up's
 * full collection (collectGarbage in speed/warm-up.ts), which goes without it otherwise.
 */
export const MEASURING_PROCESS_FLAGS = ['--no-memory-reducer', '--expose-gc'] as const;
