/**
 * Two replicas on one PostgreSQL database and nothing configured by hand: the first to start generates the key and
 * keeps it in `deployment_secrets`; the other signs with the same key, so both serve the same JWKS and give the same
 * token for the same decision, and a token from either verifies against either.
 */
import { describe, expect, it } from 'vitest';
import { replicaPair } from '../postgres/replica-pair.js';
import { verifyVerdict } from '../../../src/verify/index.js';
import { withClient } from '../postgres/fresh-database.js';

const pair = replicaPair();

describe('replicas with no signing key set by hand', () => {
  it('sign with one key kept in the database', async () => {
    // Both load the key as they start: one INSERT wins, both read the winner.
    const [jwksA, jwksB] = await Promise.all(
      [pair.a, pair.b].map(
        async (g) => (await fetch(`${g.url}/.well-known/jwks.json`)).json() as Promise<{ keys: { kid: string }[] }>,
      ),
    );
    expect(jwksA!.keys).toHaveLength(1);
    expect(jwksB).toEqual(jwksA);
    const rows = await withClient(
      pair.database.url,
      async (c) =>
        (await c.query<{ name: string }>("SELECT name FROM deployment_secrets WHERE name = 'verdict_signing'")).rows,
    );
    expect(rows).toHaveLength(1);

    const created = (await (
      await pair.a.api('/v1/requests', { body: { tool_name: 'pay_invoice', tool_args: { amount: 12 } } })
    ).json()) as { id: string };
    const decided = (await (
      await pair.b.api(`/v1/requests/${created.id}/decision`, { body: { decision: 'approve', approver: 'web:alice' } })
    ).json()) as { verdict_token: string };
    const readOnA = (await (await pair.a.api(`/v1/requests/${created.id}`)).json()) as { verdict_token: string };
    // Signed on B at the decision and on A at the read: deterministic claims and Ed25519 give the very same token.
    expect(readOnA.verdict_token).toBe(decided.verdict_token);
    for (const g of [pair.a, pair.b]) {
      expect(
        await verifyVerdict(decided.verdict_token, {
          jwksUrl: `${g.url}/.well-known/jwks.json`,
          toolName: 'pay_invoice',
          args: { amount: 12 },
        }),
      ).toMatchObject({ ok: true, claims: { jti: created.id } });
    }
  });
});
