/**
 * @module utils/iso-time
 * `Date.prototype.toISOString` in plain arithmetic. V8 formats an ISO date in its runtime (a call out of JIT code,
 * its date cache, a formatted copy): ~7,000 instructions a call, and a create wrote eight of them (the row's times,
 * each event's `at`, the asked digest), 8 % of a create's instructions (callgrind). This one is JIT code.
 */

/** '00' … '99' and '000' … '999'. */
const PAD2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
const DAY_MS = 86_400_000;
/** 9999-12-31T23:59:59.999Z: past it (and before 1970) toISOString writes a six-digit year, or throws; it does that here too. */
const LAST_FOUR_DIGIT_YEAR = 253_402_300_799_999;

/**
 * `d.toISOString()`, byte for byte: the same string for every time from 1970 to the year 9999, and `toISOString`
 * itself outside them (an invalid date throws its RangeError).
 * @example isoString(new Date(0)) === '1970-01-01T00:00:00.000Z'
 */
export function isoString(d: Date): string {
  const t = d.getTime();
  if (!(t >= 0 && t <= LAST_FOUR_DIGIT_YEAR)) return d.toISOString();
  const days = Math.floor(t / DAY_MS);
  let ms = t - days * DAY_MS;
  // Civil date from days since 1970-01-01 (H. Hinnant's days_from_civil inverse), on non-negative days only.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(ms / 3_600_000);
  ms -= hours * 3_600_000;
  const minutes = Math.floor(ms / 60_000);
  ms -= minutes * 60_000;
  const seconds = Math.floor(ms / 1000);
  ms -= seconds * 1000;
  return `${year}-${PAD2[month]}-${PAD2[day]}T${PAD2[hours]}:${PAD2[minutes]}:${PAD2[seconds]}.${PAD3[ms]}Z`;
}
