/**
 * The function that puts a call on its day: `YYYY-MM-DD` of an ISO time in a time zone (the machine's by default,
 * as ccusage does, so that "today" is the user's today).
 * @throws RangeError for a time zone Intl does not know
 * @example dayOf('UTC')('2026-01-02T23:30:00Z') // '2026-01-02'
 */
export function dayOf(timeZone?: string): (iso: string) => string {
  // en-CA writes dates as YYYY-MM-DD.
  const format = new Intl.DateTimeFormat('en-CA', {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    ...(timeZone === undefined ? {} : { timeZone }),
  });
  const days = new Map<string, string>();
  return (iso) => {
    // Calls of one minute share their day (every time zone's offset is whole minutes): format each minute once.
    const minute = iso.slice(0, 16);
    let day = iso.length >= 20 && iso.endsWith('Z') ? days.get(minute) : undefined;
    if (day === undefined) {
      day = format.format(new Date(iso));
      if (iso.endsWith('Z')) days.set(minute, day);
    }
    return day;
  };
}
