/** Timestamps as GitLab writes them: ISO-8601 with milliseconds and Z. Dates as YYYY-MM-DD. */
export const isoTime = (d: Date): string => d.toISOString();
export const isoDate = (d: Date): string => d.toISOString().slice(0, 10);
export const addDays = (d: Date, days: number): Date => new Date(d.getTime() + days * 86_400_000);
