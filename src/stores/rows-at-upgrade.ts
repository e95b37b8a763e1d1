/**
 * @module stores/rows-at-upgrade
 * `OpenStores.signRowsAtUpgrade` on either dialect: the API tokens and away changes kept from before row signatures
 * (`audit/witnessed-rows.ts`) are signed as they are, once, and only by the process whose open applied the migration
 * adding the signatures — a later start signs nothing, so a row inserted by hand after the upgrade stays unsigned.
 */
import type { Witness } from '../audit/witness.js';

/** What {@link rowsAtUpgrade} adds to the opened stores. */
export interface RowsAtUpgrade {
  /**
   * Signs the token and away rows that predate row signatures, as they are: only in the process whose start applied
   * the migration adding them (a later start signs nothing, so a row inserted by hand afterwards stays unsigned).
   * Called by `serve` once the key is loaded; answers how many rows it signed.
   */
  signRowsAtUpgrade(witness: Witness): Promise<{ tokens: number; away: number }>;
  /** Whether this open applied that migration and `signRowsAtUpgrade` has not run yet (`tollgate migrate` asks). */
  rowsAwaitSigning(): boolean;
}

/** Signs at most once, when this open applied the migration adding row signatures (see `signRowsAtUpgrade`). */
export function rowsAtUpgrade(
  upgrading: boolean,
  stores: Record<'tokens' | 'away', { signUnsigned(witness: Witness): number | Promise<number> }>,
): RowsAtUpgrade {
  return {
    signRowsAtUpgrade: async (witness) => {
      if (!upgrading) return { tokens: 0, away: 0 };
      const signed = {
        tokens: await stores.tokens.signUnsigned(witness),
        away: await stores.away.signUnsigned(witness),
      };
      upgrading = false;
      return signed;
    },
    rowsAwaitSigning: () => upgrading,
  };
}
