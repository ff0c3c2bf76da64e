/** Timestamps as GitLab writes them: ISO-8601 with milliseconds and Z. Dates as YYYY-MM-DD. */
export const isoTime = (d: Date): string => d.toISOString();

/** The last day isoDate made, and the instants it spans: most calls (a request's "today") fall on the same day. */
let lastDay = { from: 0, to: 0, day: '' };

/** `d`'s day in UTC (`2030-06-15`), made once per day instead of once per call. */
export const isoDate = (d: Date): string => isoDateOfMs(d.getTime());

/** Today's date (UTC) by the service's clock, without a Date per call. */
export const today = (svc: { nowMs(): number }): string => isoDateOfMs(svc.nowMs());

/** isoDate of an instant in milliseconds since the epoch. */
export function isoDateOfMs(ms: number): string {
  if (ms >= lastDay.from && ms < lastDay.to) return lastDay.day;
  if (Number.isNaN(ms)) return new Date(ms).toISOString().slice(0, 10);
  const from = ms - (((ms % 86_400_000) + 86_400_000) % 86_400_000);
  lastDay = { from, to: from + 86_400_000, day: new Date(ms).toISOString().slice(0, 10) };
  return lastDay.day;
}
export const addDays = (d: Date, days: number): Date => new Date(d.getTime() + days * 86_400_000);
