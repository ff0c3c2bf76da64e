import { describe, expect, it } from 'vitest';
import { isoDate } from '../../src/main/service/areas/core/time';

/** isoDate remembers the last day it made: the day must still follow the clock, forwards and back. */
describe("a moment's day in UTC", () => {
  it('changes exactly at midnight UTC, whichever way the clock goes', () => {
    const days = ['2030-06-15T23:59:59.999Z', '2030-06-16T00:00:00.000Z', '2030-06-15T00:00:00.000Z', '2030-06-14T23:59:59.999Z', '1969-12-31T23:59:59.999Z', '1970-01-01T00:00:00.000Z', '2030-06-16T12:00:00+14:00'];
    expect(days.map((d) => isoDate(new Date(d)))).toEqual(['2030-06-15', '2030-06-16', '2030-06-15', '2030-06-14', '1969-12-31', '1970-01-01', '2030-06-15']);
  });

  it('is what toISOString starts with, at any moment, and refuses an invalid date as it does', () => {
    for (const ms of [0, -1, 86_399_999, 86_400_000, 1.9e12, -6.2e13, 8.64e15, -8.64e15]) expect(isoDate(new Date(ms))).toBe(new Date(ms).toISOString().slice(0, 10));
    expect(() => isoDate(new Date(NaN))).toThrow(RangeError);
  });
});
