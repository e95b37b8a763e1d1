/**
 * @module signing/key-place
 * Where a signing key lives, and the words for it: the place decides who can forge a verdict or a receipt.
 */

/** What the start-up log, `/readyz` and every `audit verify` output say when the signing key is in the database. */
export const KEY_IN_DATABASE_WARNING = 'signing key in the database: a database writer can forge';

/**
 * Where the signing key lives: `setting` (`TOLLGATE_SIGNING_KEY`), `file` (`TOLLGATE_SIGNING_KEY_FILE`, or the key
 * file beside a SQLite database), `memory` (an in-memory database's, gone with the process), `database` (the
 * deployment secret `verdict_signing`: the one place a database writer can forge from).
 */
export type KeyPlace = 'setting' | 'file' | 'memory' | 'database';

/** One line on where the key lives, for the start-up log, `/readyz` and the CLI: the warning itself for the database. */
export function describeKeyPlace(keys: { place: KeyPlace; location: string }, kid?: string): string {
  const id = kid ? `; kid ${kid}` : '';
  if (keys.place === 'database')
    return `${KEY_IN_DATABASE_WARNING} (set TOLLGATE_SIGNING_KEY_FILE to keep it outside)${id}`;
  return `signing key in ${keys.location}${id}`;
}
