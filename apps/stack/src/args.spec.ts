import { DEFAULT_STACK_OPTIONS, parseStackArgs } from './args';

describe('parseStackArgs', () => {
  it('serves until Ctrl-C by default', () => {
    expect(parseStackArgs([])).toEqual(DEFAULT_STACK_OPTIONS);
    expect(DEFAULT_STACK_OPTIONS.once).toBe(false);
  });

  it('reads every flag', () => {
    expect(
      parseStackArgs([
        '--once',
        '--verbose',
        '--runs',
        '2',
        '--interval',
        '10',
        '--api-port',
        '4000',
        '--sim-ports',
        '9001,9002',
      ]),
    ).toEqual({
      once: true,
      verbose: true,
      runs: 2,
      intervalS: 10,
      apiPort: 4000,
      simulatorPorts: [9001, 9002],
    });
    expect(parseStackArgs(['--help'])).toBe('help');
  });

  it.each([
    [['--runs', '0'], '--runs: expected a whole number from 1 to 100, got "0"'],
    [['--interval', '2'], '--interval: expected a whole number from 5 to 3600, got "2"'],
    [['--api-port', 'http'], '--api-port: expected a whole number from 1 to 65535, got "http"'],
    [['--sim-ports', '9001'], '--sim-ports takes two ports separated by a comma, got "9001"'],
    [['--sim-ports', '9001,x'], '--sim-ports: expected a whole number from 1 to 65535, got "x"'],
    [['--bogus'], 'unknown flag --bogus'],
  ])('refuses %j with a message naming the flag', (argv, message) => {
    expect(() => parseStackArgs(argv)).toThrow(message);
  });
});
