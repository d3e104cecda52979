/** A bad command line: the message names the flag and what it expects, and never echoes secrets. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
