/**
 * The verdict token's bytes: `signCompactJws` (node:crypto, synchronous) gives exactly what jose's `SignJWT` gives for
 * the same header, claims and key, so choosing the faster path changed nothing a verifier sees.
 */
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { signCompactJws } from '../../../src/signing/jws.js';
import { VerdictSigner, verdictClaims } from '../../../src/signing/verdict.js';
import { keyFromSeed, staticSigningKeys } from '../../../src/signing/keys.js';
import { newDeploymentSecret } from '../../../src/contracts/deployment-secrets.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';

const row = (patch: Partial<ConfirmationRequest> = {}): ConfirmationRequest =>
  ({
    id: '01900000-0000-7000-8000-000000000001',
    status: 'approved',
    toolName: 'pay_invoice',
    toolArgs: { amount: 10 },
    approvedArgs: null,
    requiredApprovals: 1,
    respondedAt: new Date('2026-01-01T00:00:10.900Z'),
    updatedAt: new Date('2026-01-01T00:00:10.900Z'),
    respondedBy: 'slack:U1',
    respondedByPerson: 'alice',
    allowed: true,
    ...patch,
  }) as ConfirmationRequest;

describe('signCompactJws', () => {
  it('equals jose SignJWT byte for byte', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const header = { alg: 'EdDSA' as const, kid: 'k1', typ: 'tollgate-verdict+jwt' };
    const claims = verdictClaims(row(), 3600);
    expect(signCompactJws(header, claims, privateKey)).toBe(
      await new SignJWT({ ...claims }).setProtectedHeader(header).sign(privateKey),
    );
  });
});

describe('verdictClaims', () => {
  it('takes iat from the decision (whole seconds), the edited arguments over the filed ones, and one decider', () => {
    const claims = verdictClaims(row({ approvedArgs: { amount: 9 } }), 60);
    expect(claims).toMatchObject({
      jti: row().id,
      tool: 'pay_invoice',
      allowed: true,
      people: ['alice'],
      accounts: ['slack:U1'],
      iat: 1767225610,
      exp: 1767225670,
    });
    expect(claims.args_sha256).not.toBe(verdictClaims(row(), 60).args_sha256);
  });

  it('names nobody for an expiry and refuses it', () => {
    expect(
      verdictClaims(row({ status: 'expired', allowed: false, respondedBy: null, respondedByPerson: null }), 60),
    ).toMatchObject({ allowed: false, people: [], accounts: [] });
  });
});

describe('VerdictSigner', () => {
  it('signs a row once and answers later reads from its cache, until the row changes', async () => {
    const key = await keyFromSeed(newDeploymentSecret());
    let reads = 0;
    const signer = new VerdictSigner(
      { ...staticSigningKeys(key), current: async () => (reads++, key) },
      { cacheSize: 2 },
    );
    const first = await signer.sign(row());
    expect(await signer.sign(row())).toBe(first);
    expect(reads).toBe(1);
    expect(signer.cached(row({ updatedAt: new Date('2026-01-01T00:01:00Z') }))).toBeUndefined();
    // The oldest entry goes first when the cache is full.
    await signer.sign(row({ id: 'b' }));
    await signer.sign(row({ id: 'c' }));
    expect(signer.cached(row())).toBeUndefined();
    expect(signer.cached(row({ id: 'c' }))).toBeDefined();
  });
});

describe('tollgate/verify', () => {
  it('checks the token types signing/verdict writes', async () => {
    const { VERDICT_TYPE, ANCHOR_TYPE } = await import('../../../src/signing/verdict.js');
    const source = (await import('node:fs')).readFileSync(
      new URL('../../../src/verify/index.ts', import.meta.url),
      'utf8',
    );
    expect(source).toContain(`const VERDICT_TYPE = '${VERDICT_TYPE}';`);
    expect(source).toContain(`const ANCHOR_TYPE = '${ANCHOR_TYPE}';`);
  });
});
