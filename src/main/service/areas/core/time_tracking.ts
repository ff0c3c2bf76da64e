/**
 * Gitlab::TimeTrackingFormatter's ChronicDuration limits: a day of 8 hours, a week of 5 days, a month
 * of 4 weeks (Gitlab::Patch::ChronicDuration's days_per_week * 4).
 */
const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 8 * HOUR;
const WEEK = 5 * DAY;
const MONTH = 4 * WEEK;
const YEAR = 31557600;

const UNITS: [RegExp, number][] = [
  [/^(?:s|secs?|seconds?)$/, 1],
  [/^(?:m|mins?|minutes?)$/, MINUTE],
  [/^(?:h|hrs?|hours?)$/, HOUR],
  [/^(?:d|days?)$/, DAY],
  [/^(?:w|wks?|weeks?)$/, WEEK],
  [/^(?:mo|mos|mons?|months?)$/, MONTH],
  [/^(?:y|yrs?|years?)$/, YEAR],
];

/**
 * Gitlab::TimeTrackingFormatter.parse: ChronicDuration with default_unit hours and its complete
 * matcher (a string of anything but numbers with units is no duration: null), a leading "-" making
 * it negative; "1:30" is minutes and seconds as ChronicDuration reads a clock. Zero is null unless
 * keepZero (the estimate endpoint's keep_zero: true).
 */
export function parseDuration(input: string, keepZero = false): number | null {
  let text = input.trim().toLowerCase();
  const negative = text.startsWith('-');
  if (negative) text = text.slice(1);
  let seconds = 0;
  const clock = /^\d+(?::\d+){1,6}(?:\.\d*)?$/.exec(text.replace(/\s/g, ''));
  if (clock) {
    const parts = text.replace(/\s/g, '').split(':').reverse();
    const scale = [1, MINUTE, HOUR, DAY, WEEK, MONTH, YEAR];
    parts.forEach((v, k) => (seconds += Number(v) * scale[k]));
  } else {
    const tokens = [...text.matchAll(/(\d*\.?\d+)\s*([a-z]*)[\s,]*(?:and\s+)?/g)];
    if (!tokens.length || tokens.map((m) => m[0]).join('') !== text.replace(/^\s+/, '')) return null;
    for (const [, n, unit] of tokens) {
      const scale = unit ? UNITS.find(([re]) => re.test(unit))?.[1] : HOUR;
      if (scale === undefined) return null;
      seconds += Number(n) * scale;
    }
  }
  seconds = Math.round(seconds);
  if (seconds === 0 && !keepZero) return null;
  return negative ? -seconds : seconds;
}

/**
 * Gitlab::TimeTrackingFormatter.output: ChronicDuration's short format with weeks ("3w 1h", "1mo 2d
 * 30m"), zero parts left out; null for nothing.
 */
export function formatDuration(total: number): string | null {
  let rest = Math.abs(total);
  const parts: string[] = [];
  for (const [size, unit] of [
    [MONTH, 'mo'],
    [WEEK, 'w'],
    [DAY, 'd'],
    [HOUR, 'h'],
    [MINUTE, 'm'],
    [1, 's'],
  ] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n) parts.push(`${n}${unit}`);
  }
  return parts.length ? parts.join(' ') : null;
}

export interface TimeTracked {
  time_estimate?: number;
  total_time_spent?: number;
}

const NO_TIME = Object.freeze({ time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null });

/** Entities::IssuableTimeStats; a record with no time tracked shares one object (the entities of a kept page are many). */
export function timeStats(row: TimeTracked): { time_estimate: number; total_time_spent: number; human_time_estimate: string | null; human_total_time_spent: string | null } {
  const estimate = row.time_estimate ?? 0;
  const spent = row.total_time_spent ?? 0;
  if (!estimate && !spent) return NO_TIME;
  return { time_estimate: estimate, total_time_spent: spent, human_time_estimate: formatDuration(estimate), human_total_time_spent: formatDuration(spent) };
}
