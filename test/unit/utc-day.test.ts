import { describe, expect, it } from 'vitest';
import { utcDay } from '../../src/main/service/areas/core/users';

/** utcDay remembers the last day it made: the day must still follow the clock, forwards and back. */
describe("a moment's day in UTC", () => {
  it('changes exactly at midnight UTC, whichever way the clock goes', () => {
    const days = ['2030-06-15T23:59:59.999Z', '2030-06-16T00:00:00.000Z', '2030-06-15T00:00:00.000Z', '2030-06-14T23:59:59.999Z', '1969-12-31T23:59:59.999Z', '1970-01-01T00:00:00.000Z', '2030-06-16T12:00:00+14:00'];
    expect(days.map((d) => utcDay(new Date(d)))).toEqual(['2030-06-15', '2030-06-16', '2030-06-15', '2030-06-14', '1969-12-31', '1970-01-01', '2030-06-15']);
  });
});
