const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const weekday = new Intl.DateTimeFormat("en-US", { weekday: "short" });
const monthDay = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric" });
const fullDate = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric" });
const exact = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });

/**
 * When something happened, short enough for a sidebar: `just now`, `5 min ago`, `3 h ago`,
 * `yesterday`, a weekday within the week, then the date (with the year when it is not this year).
 */
export function relativeTime(iso: string, now: Date = new Date()): string {
  const then = new Date(iso);
  const ms = now.getTime() - then.getTime();
  if (Number.isNaN(ms)) return "";
  if (ms < MINUTE) return "just now";
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ago`;
  const days = calendarDaysBetween(then, now);
  if (days === 0) return `${Math.floor(ms / HOUR)} h ago`;
  if (days === 1) return "yesterday";
  if (days < 7) return weekday.format(then);
  return then.getFullYear() === now.getFullYear() ? monthDay.format(then) : fullDate.format(then);
}

/** The exact local date and time, for a tooltip beside the relative one. */
export function exactTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : exact.format(date);
}

/** Midnights crossed from `a` to `b`, in local time (a day is not always 24 h across DST). */
function calendarDaysBetween(a: Date, b: Date): number {
  const start = new Date(a.getFullYear(), a.getMonth(), a.getDate());
  const end = new Date(b.getFullYear(), b.getMonth(), b.getDate());
  return Math.round((end.getTime() - start.getTime()) / DAY);
}
