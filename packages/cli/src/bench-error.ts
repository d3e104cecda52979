/** A benchmark that could not run or produced nothing: one line, exit code 1. */
export class BenchError extends Error {}
