/**
 * Wall-clock arithmetic in a member's IANA time zone, through Intl (no time-zone database of our
 * own): quiet hours (which may cross midnight) and the local times digests go out at. A local
 * time that a DST change skips (02:30 on a spring-forward night) is taken as the instant the clock
 * jumps past it; one that occurs twice (autumn) is its first occurrence.
 */

export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

interface LocalParts extends LocalDate {
  hour: number;
  minute: number;
  /** 1 = Monday … 7 = Sunday */
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

export function localParts(at: Date, timeZone: string): LocalParts & { second: number } {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(at)) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS[parts.weekday],
  };
}

/** Offset of the zone from UTC at `ms`, in milliseconds (local wall clock minus UTC). */
function offsetAt(ms: number, timeZone: string): number {
  const p = localParts(new Date(ms), timeZone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The instant at which the zone's wall clock shows `date` `hh:mm`. */
export function instantAt(date: LocalDate, hhmm: string, timeZone: string): Date {
  const [hour, minute] = hhmm.split(':').map(Number);
  const wall = Date.UTC(date.year, date.month - 1, date.day, hour, minute);
  const first = wall - offsetAt(wall, timeZone);
  const firstOffset = offsetAt(first, timeZone);
  if (wall - firstOffset === first) return new Date(first);
  const second = wall - firstOffset;
  if (offsetAt(second, timeZone) === firstOffset) return new Date(second);
  // Neither offset maps back to this wall time: it falls in a DST gap; take the later instant.
  return new Date(Math.max(first, second));
}

export function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

export interface QuietWindow {
  start: string;
  end: string;
  timezone: string;
}

/** True when `at` falls inside the quiet hours [start, end) (crossing midnight when end < start). */
export function inQuietHours(at: Date, quiet: QuietWindow): boolean {
  const p = localParts(at, quiet.timezone);
  const now = p.hour * 60 + p.minute;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  return start < end ? now >= start && now < end : now >= start || now < end;
}

/** `at` itself outside quiet hours, else the instant they end (the next local `end`). */
export function afterQuietHours(at: Date, quiet: QuietWindow | null): Date {
  if (!quiet || !inQuietHours(at, quiet)) return at;
  const p = localParts(at, quiet.timezone);
  const today: LocalDate = { year: p.year, month: p.month, day: p.day };
  const endToday = instantAt(today, quiet.end, quiet.timezone);
  return endToday.getTime() > at.getTime() ? endToday : instantAt(addDays(today, 1), quiet.end, quiet.timezone);
}

/** Local time at which digests go out: daily every day, weekly on Mondays. */
export const DIGEST_TIME = '08:00';

/** The first digest instant strictly after `at`: the next local 08:00 (daily) or Monday 08:00 (weekly). */
export function nextDigestAt(at: Date, frequency: 'daily' | 'weekly', timeZone: string): Date {
  const p = localParts(at, timeZone);
  let date: LocalDate = { year: p.year, month: p.month, day: p.day };
  if (frequency === 'weekly') date = addDays(date, (8 - p.weekday) % 7);
  let candidate = instantAt(date, DIGEST_TIME, timeZone);
  if (candidate.getTime() <= at.getTime()) candidate = instantAt(addDays(date, frequency === 'weekly' ? 7 : 1), DIGEST_TIME, timeZone);
  return candidate;
}

/** The local Monday (ISO week start) of the week `at` falls in, as YYYY-MM-DD, and its 08:00 instant. */
export function weekOf(at: Date, timeZone: string): { monday: string; digestAt: Date } {
  const p = localParts(at, timeZone);
  const monday = addDays({ year: p.year, month: p.month, day: p.day }, 1 - p.weekday);
  const iso = `${monday.year}-${String(monday.month).padStart(2, '0')}-${String(monday.day).padStart(2, '0')}`;
  return { monday: iso, digestAt: instantAt(monday, DIGEST_TIME, timeZone) };
}
