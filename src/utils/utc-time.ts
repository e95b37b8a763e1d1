/**
 * @module utils/utc-time
 * The one way a time is written for people: `2026-12-01 21:21:20 UTC` — to the second, unambiguous in any time zone,
 * the same on a card, a web page and in a terminal.
 */

/** `2026-12-01 21:21:20 UTC`. */
export function utcText(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
