import { UsageError, readFlags } from './flags';

const OPTIONS = {
  url: { type: 'string' },
  raw: { type: 'boolean' },
  header: { type: 'string', multiple: true },
} as const;

describe('readFlags', () => {
  it('reads strings, switches and repeated flags', () => {
    expect(readFlags(['--url', 'http://x', '--raw', '--header', 'a: 1', '--header=b: 2'], OPTIONS)).toEqual({
      url: 'http://x',
      raw: true,
      header: ['a: 1', 'b: 2'],
    });
    expect(readFlags([], OPTIONS)).toEqual({});
  });

  it.each([
    [['--bogus'], 'unknown flag --bogus'],
    [['-x'], 'unknown flag -x'],
    [['--url'], '--url needs a value (write --url=VALUE for a value that starts with -)'],
    [['--url', '--raw'], '--url needs a value'],
    [['--raw=yes'], '--raw is a switch and takes no value'],
    [['stray'], 'unexpected argument "stray": every setting is a --flag'],
  ])('refuses %j in one line naming the flag', (argv, message) => {
    expect(() => readFlags(argv, OPTIONS)).toThrow(UsageError);
    expect(() => readFlags(argv, OPTIONS)).toThrow(message);
  });
});
