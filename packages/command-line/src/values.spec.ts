import { UsageError } from './flags';
import { numberFrom, oneOf, positiveNumber, wholeNumber } from './values';

describe('the readers of a flag value', () => {
  it('pass an absent flag through as undefined, for `?? default`', () => {
    expect(wholeNumber('--n', undefined, 1)).toBeUndefined();
    expect(numberFrom('--x', undefined, 0, 1)).toBeUndefined();
    expect(positiveNumber('--rate', undefined)).toBeUndefined();
    expect(oneOf('--api', undefined, ['chat'])).toBeUndefined();
  });

  it('read what they accept', () => {
    expect(wholeNumber('--n', '0', 0)).toBe(0);
    expect(wholeNumber('--port', '65535', 1, 65535)).toBe(65535);
    expect(wholeNumber('--offset', '-3', -5, 5)).toBe(-3);
    expect(numberFrom('--jitter', '0.05', 0, 1)).toBe(0.05);
    expect(numberFrom('--mean', '1e3', 1, 1e9)).toBe(1000);
    expect(numberFrom('--x', '.5', 0, 1)).toBe(0.5);
    expect(positiveNumber('--rate', '2.5')).toBe(2.5);
    expect(oneOf('--api', 'chat', ['chat', 'completions'] as const)).toBe('chat');
  });

  it.each([
    [() => wholeNumber('--n', '0', 1), '--n: expected a whole number >= 1, got "0"'],
    [() => wholeNumber('--n', '2.5', 1), '--n: expected a whole number >= 1, got "2.5"'],
    [() => wholeNumber('--n', '1e3', 1), '--n: expected a whole number >= 1, got "1e3"'],
    [() => wholeNumber('--n', '0x10', 1), '--n: expected a whole number >= 1, got "0x10"'],
    [() => wholeNumber('--n', ' 5', 1), '--n: expected a whole number >= 1, got " 5"'],
    [() => wholeNumber('--n', '', 1), '--n: expected a whole number >= 1, got ""'],
    [() => wholeNumber('--n', '99999999999999999', 1), 'expected a whole number >= 1'],
    [
      () => wholeNumber('--port', '70000', 0, 65535),
      '--port: expected a whole number from 0 to 65535, got "70000"',
    ],
    [() => numberFrom('--jitter', '2', 0, 1), '--jitter: expected a number from 0 to 1, got "2"'],
    [() => numberFrom('--jitter', 'Infinity', 0, Infinity), '--jitter: expected a number from 0 to Infinity'],
    [() => numberFrom('--jitter', '0x1', 0, 1), '--jitter: expected a number from 0 to 1, got "0x1"'],
    [() => positiveNumber('--rate', '0'), '--rate: expected a number > 0, got "0"'],
    [() => positiveNumber('--rate', 'fast'), '--rate: expected a number > 0, got "fast"'],
    [() => positiveNumber('--rate', '-'), '--rate: expected a number > 0, got "-"'],
    [
      () => oneOf('--api', 'embeddings', ['chat', 'completions']),
      '--api: expected one of chat, completions, got "embeddings"',
    ],
  ])('refuse in one wording: %#', (read, message) => {
    expect(read).toThrow(UsageError);
    expect(read).toThrow(message);
  });
});
