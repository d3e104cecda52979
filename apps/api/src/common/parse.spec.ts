import { parseTimestamp, parseWholeNumber } from './parse';

describe('parseWholeNumber', () => {
  it('reads plain whole numbers only', () => {
    expect(['0', '7', '-3', '2147483647'].map(parseWholeNumber)).toEqual([0, 7, -3, 2147483647]);
    for (const text of ['01', '1e3', '0x10', ' 5', '5 ', '+5', '5.0', '-0', '', '1_000', '9'.repeat(16)]) {
      expect([text, parseWholeNumber(text)]).toEqual([text, null]);
    }
  });
});

describe('parseTimestamp', () => {
  it('reads ISO 8601 with a zone, or a bare UTC date', () => {
    expect(parseTimestamp('2026-01-01T00:00:00Z')?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(parseTimestamp('2026-01-01T00:00:00.123456789Z')?.toISOString()).toBe('2026-01-01T00:00:00.123Z');
    expect(parseTimestamp('2026-01-01T02:30+02:30')?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(parseTimestamp('2026-01-01T00:00:00-05:00')?.toISOString()).toBe('2026-01-01T05:00:00.000Z');
    expect(parseTimestamp('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(parseTimestamp('1970-01-01T00:00:00Z')?.getTime()).toBe(0);
    expect(parseTimestamp('9999-12-31T23:59:59.999Z')?.toISOString()).toBe('9999-12-31T23:59:59.999Z');
  });

  it('refuses other spellings, impossible dates and years outside 1970..9999', () => {
    for (const text of [
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00Z',
      '1969-12-31T23:59:59Z',
      '+275760-09-13T00:00:00.000Z',
      '-000001-01-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2025-02-29',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:00',
      '2026-01-01T00:00:00+2',
      '20260101',
      '2026-1-1',
      ' 2026-01-01',
      '1767225600',
    ]) {
      expect([text, parseTimestamp(text)]).toEqual([text, null]);
    }
  });
});
