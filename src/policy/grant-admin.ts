/**
 * @module policy/grant-admin
 * Listing and revoking standing grants, shared by `GET/DELETE /v1/grants` and the web inbox's grants page: a
 * revocation holds at once on every process sharing the database and leaves `grant_revoked` on the request whose
 * approval gave the grant.
 */
import type { NewEvent } from '../requests/types.js';
import type { Grant, GrantStore } from './grants.js';

/** Lists and revokes grants. */
export class GrantAdmin {
  constructor(
    private readonly grants: GrantStore,
    /** Appends an audit event to a request (the gateway's `note`). */
    private readonly note: (requestId: string, event: NewEvent) => Promise<void>,
    private readonly now: () => number,
  ) {}

  /** Live grants, newest first; with `all`, the expired and revoked ones too. */
  async list(options: { all?: boolean; limit?: number } = {}): Promise<Grant[]> {
    return this.grants.list({ now: new Date(this.now()), all: options.all, limit: options.limit });
  }

  /**
   * Revokes grant `id` for `by` (`api:<token>`, `web:<user>`); null when there is no such grant. Revoking a grant
   * that is no longer live changes nothing and records nothing.
   */
  async revoke(id: string, by: string): Promise<Grant | null> {
    const at = new Date(this.now());
    const result = await this.grants.revoke(id, by, at);
    if (!result) return null;
    if (result.revoked) {
      await this.note(result.grant.requestId, {
        type: 'grant_revoked',
        actor: by,
        channel: by.split(':')[0] ?? null,
        detail: { grant: id, label: result.grant.label, rule: result.grant.rule },
        at,
      });
    }
    return result.grant;
  }
}
