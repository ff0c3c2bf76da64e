/**
 * ChronicDuration as GitLab runs it (gitlab_chronic_duration 0.12 with `raise_exceptions = true`,
 * config/initializers/chronic_duration.rb): "1h 30m", "2 hrs and 5 min", "1:20", "90" (seconds).
 * An unknown word makes the string no duration; so does a total of zero.
 */

const FLOAT = /[0-9]*\.?[0-9]+/;
const FLOAT_GLOBAL = /[0-9]*\.?[0-9]+/g;
/** The complete matcher: "3:41:59" style chrono times, nothing else on the line. */
const CHRONO_TIME = /^[0-9]+:[0-9]+(:[0-9]+){0,4}(\.[0-9]*)?$/;
const CHRONO_UNITS = ['seconds', 'minutes', 'hours', 'days', 'months', 'years'];
const JOIN_WORDS = ['and', 'with', 'plus'];

const UNIT_SECONDS: Record<string, number> = {
  seconds: 1,
  minutes: 60,
  hours: 3600,
  days: 86400,
  weeks: 7 * 86400,
  months: 30 * 86400,
  years: 31557600,
};

const MAPPINGS: Record<string, string> = {
  seconds: 'seconds', second: 'seconds', secs: 'seconds', sec: 'seconds', s: 'seconds',
  minutes: 'minutes', minute: 'minutes', mins: 'minutes', min: 'minutes', m: 'minutes',
  hours: 'hours', hour: 'hours', hrs: 'hours', hr: 'hours', h: 'hours',
  days: 'days', day: 'days', dy: 'days', d: 'days',
  weeks: 'weeks', week: 'weeks', wks: 'weeks', wk: 'weeks', w: 'weeks',
  months: 'months', mo: 'months', mos: 'months', month: 'months',
  years: 'years', year: 'years', yrs: 'years', yr: 'years', y: 'years',
};

/** Numerizer's plain cardinals ("two hours"), the part of it CI durations use. */
const NUMBER_WORDS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
};

function numerize(text: string): string {
  return text.replace(/\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[\s-]+(one|two|three|four|five|six|seven|eight|nine)\b|\b[a-z]+\b/g, (word, tens?: string, unit?: string) => {
    if (tens && unit) return String(NUMBER_WORDS[tens] + NUMBER_WORDS[unit]);
    return word in NUMBER_WORDS ? String(NUMBER_WORDS[word]) : word;
  });
}

/** "3:41:59" → "3 hours 41 minutes 59 seconds". */
function filterByType(text: string): string {
  const compact = text.replace(/ /g, '');
  if (!CHRONO_TIME.test(compact)) return text;
  const parts = compact.split(':').reverse();
  if (parts.length > CHRONO_UNITS.length) return '';
  return parts.map((v, k) => `${v} ${CHRONO_UNITS[k]}`).reverse().join(' ');
}

/** Keeps numbers and known units; any other word (but and/with/plus) is a parse error. */
function filterThroughWhiteList(text: string): string[] | null {
  const out: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (FLOAT.test(word)) {
      out.push(word);
      continue;
    }
    const stripped = word.replace(/^,/, '').replace(/,$/, '');
    if (stripped in MAPPINGS) out.push(MAPPINGS[stripped]);
    else if (!JOIN_WORDS.includes(stripped)) return null;
  }
  // "day" or "minute 30s" start with a unit: one of it.
  if (out.length && out[0] in MAPPINGS) out.unshift('1');
  return out;
}

/** ChronicDuration.parse: seconds, or null when the text is not a (non-zero) duration. */
export function parseDuration(value: string): number | null {
  const cleaned = filterByType(numerize(value.toLowerCase()))
    .replace(FLOAT_GLOBAL, (n) => ` ${n} `)
    .replace(/ +/g, ' ')
    .trim();
  const words = filterThroughWhiteList(cleaned);
  if (!words) return null;
  let total = 0;
  words.forEach((word, i) => {
    if (!FLOAT.test(word)) return;
    const n = Number.parseFloat(word);
    const unit = words[i + 1] ?? 'seconds';
    total += (n % 1 > 0 ? n : Math.trunc(n)) * (UNIT_SECONDS[unit] ?? 0);
  });
  return total === 0 ? null : total;
}

/** LegacyValidationHelpers#validate_duration. */
export function isDuration(value: unknown): boolean {
  return typeof value === 'string' && parseDuration(value) !== null;
}

/** LegacyValidationHelpers#validate_duration_limit: within `limit` (both parse). */
export function isWithinDuration(value: unknown, limit: string): boolean {
  if (typeof value !== 'string') return false;
  const seconds = parseDuration(value);
  const max = parseDuration(limit);
  return seconds !== null && max !== null && seconds <= max;
}

/** ChronicDuration.output(Project::MAX_BUILD_TIMEOUT): one ActiveSupport month, 2629746 s. */
export const MAX_BUILD_TIMEOUT = '1 mo 10 hrs 29 mins 6 secs';
