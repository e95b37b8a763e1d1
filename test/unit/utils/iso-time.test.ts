import { describe, expect, it } from 'vitest';
import { isoString } from '../../../src/utils/iso-time.js';

describe('isoString', () => {
  it('writes what toISOString writes around every boundary of the calendar', () => {
    const times = [
      0,
      1,
      999,
      Date.UTC(1970, 11, 31, 23, 59, 59, 999),
      Date.UTC(1972, 1, 29, 12),
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2000, 2, 1),
      Date.UTC(2100, 1, 28, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.UTC(2400, 1, 29),
      Date.UTC(2026, 10, 28, 13, 30, 5, 7),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    for (const t of times) expect(isoString(new Date(t))).toBe(new Date(t).toISOString());
  });

  it('writes what toISOString writes for every day of four centuries and times spread over each day', () => {
    // 1970 → 2370: every day once, each at a different hour, minute, second and millisecond.
    for (let day = 0; day < 146_097; day++) {
      const t = day * 86_400_000 + ((day * 7_919_993) % 86_400_000);
      expect(isoString(new Date(t))).toBe(new Date(t).toISOString());
    }
  });

  it('leaves times outside 1970–9999 to toISOString: six-digit years, and an invalid date throws as it does', () => {
    const before = new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 999));
    expect(isoString(before)).toBe('1969-12-31T23:59:59.999Z');
    expect(isoString(new Date(Date.UTC(10000, 0, 1)))).toBe('+010000-01-01T00:00:00.000Z');
    expect(() => isoString(new Date(Number.NaN))).toThrow(RangeError);
  });
});
