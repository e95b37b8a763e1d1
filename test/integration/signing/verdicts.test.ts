/**
 * Signed verdicts end to end on SQLite: a final request carries `verdict_token`, which `tollgate/verify` accepts
 * against the served `/.well-known/jwks.json` for exactly the approved tool and arguments, and refuses — with the
 * reason — for other arguments, another tool, after expiry, for a denial and for a key the gateway never had. The audit
 * head is signed by the same key.
 */
import { Database } from '../../../src/stores/sqlite/driver.js';
import { generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { verifyAnchor, verifyVerdict, type AuditAnchor } from '../../../src/verify/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
let jwksUrl: string;

beforeAll(async () => {
  t = await startTestServer();
  jwksUrl = `${t.url}/.well-known/jwks.json`;
});
afterAll(async () => {
  await t.close();
});

interface ApiRow {
  id: string;
  status: string;
  verdict_token: string | null;
}

/** Files a request and decides it over the API; answers the row as a later read returns it. */
async function decided(
  toolArgs: Record<string, unknown>,
  decision: Record<string, unknown>,
  tool = 'pay_invoice',
): Promise<{ created: ApiRow; decided: ApiRow; read: ApiRow }> {
  const created = (await (
    await t.api('/v1/requests', { body: { tool_name: tool, tool_args: toolArgs, approvers: ['web:alice'] } })
  ).json()) as ApiRow;
  const answer = await t.api(`/v1/requests/${created.id}/decision`, { body: { approver: 'web:alice', ...decision } });
  expect(answer.status).toBe(200);
  const read = (await (await t.api(`/v1/requests/${created.id}`)).json()) as ApiRow;
  return { created, decided: (await answer.json()) as ApiRow, read };
}

describe('verdict tokens', () => {
  it('a final approval carries a token that verifies against the served JWKS; a pending request has none', async () => {
    const { created, decided: answer, read } = await decided({ amount: 120, to: 'acme' }, { decision: 'approve' });
    expect(created.verdict_token).toBeNull();
    expect(answer.verdict_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    // Signed once, the same token on every read (Ed25519 is deterministic, and the signer caches by request id).
    expect(read.verdict_token).toBe(answer.verdict_token);

    const jwks = await fetch(jwksUrl);
    expect(jwks.status).toBe(200);
    const { keys } = (await jwks.json()) as { keys: { kid: string; kty: string; crv: string; d?: string }[] };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(keys[0]).not.toHaveProperty('d');
    expect(decodeProtectedHeader(read.verdict_token!)).toEqual({
      alg: 'EdDSA',
      kid: keys[0]!.kid,
      typ: 'tollgate-verdict+jwt',
    });

    // Key order of the arguments does not matter: the hash is over canonical JSON.
    const result = await verifyVerdict(read.verdict_token!, {
      jwksUrl,
      toolName: 'pay_invoice',
      args: { to: 'acme', amount: 120 },
    });
    expect(result).toMatchObject({
      ok: true,
      claims: { jti: created.id, tool: 'pay_invoice', allowed: true, people: ['web:alice'], accounts: ['web:alice'] },
    });
    if (!result.ok) throw new Error('unreachable');
    expect(result.claims.exp - result.claims.iat).toBe(3600);
    const row = await t.store.get(created.id);
    expect(result.claims.iat).toBe(Math.floor(row!.respondedAt!.getTime() / 1000));
  });

  it('refuses other arguments, another tool, an expired verdict and a denial, saying which', async () => {
    const { read } = await decided({ amount: 5 }, { decision: 'approve' });
    const token = read.verdict_token!;
    expect(await verifyVerdict(token, { jwksUrl, toolName: 'pay_invoice', args: { amount: 5000 } })).toMatchObject({
      ok: false,
      reason: 'args_mismatch',
    });
    expect(await verifyVerdict(token, { jwksUrl, toolName: 'delete_invoice', args: { amount: 5 } })).toMatchObject({
      ok: false,
      reason: 'wrong_tool',
    });
    const ok = await verifyVerdict(token, { jwksUrl, toolName: 'pay_invoice', args: { amount: 5 } });
    if (!ok.ok) throw new Error(ok.message);
    // An explicit time instead of a sleep: one second past `exp`, and within a tolerance that covers it.
    const later = new Date((ok.claims.exp + 1) * 1000);
    expect(
      await verifyVerdict(token, { jwksUrl, toolName: 'pay_invoice', args: { amount: 5 }, currentDate: later }),
    ).toMatchObject({ ok: false, reason: 'expired' });
    expect(
      await verifyVerdict(token, {
        jwksUrl,
        toolName: 'pay_invoice',
        args: { amount: 5 },
        currentDate: later,
        clockTolerance: 5,
      }),
    ).toMatchObject({ ok: true });

    const denial = await decided({ amount: 6 }, { decision: 'deny', reason: 'no' });
    expect(denial.read.status).toBe('denied');
    expect(
      await verifyVerdict(denial.read.verdict_token!, { jwksUrl, toolName: 'pay_invoice', args: { amount: 6 } }),
    ).toMatchObject({ ok: false, reason: 'denied', claims: { allowed: false, people: ['web:alice'] } });
  });

  it('binds an edited approval to the edited arguments, not the filed ones', async () => {
    const { read } = await decided({ amount: 900 }, { decision: 'approve', approved_args: { amount: 90 } });
    expect(
      await verifyVerdict(read.verdict_token!, { jwksUrl, toolName: 'pay_invoice', args: { amount: 90 } }),
    ).toMatchObject({ ok: true });
    expect(
      await verifyVerdict(read.verdict_token!, { jwksUrl, toolName: 'pay_invoice', args: { amount: 900 } }),
    ).toMatchObject({ ok: false, reason: 'args_mismatch' });
  });

  it('refuses a token the gateway did not sign, a forged signature and garbage, without throwing', async () => {
    const { read } = await decided({ amount: 7 }, { decision: 'approve' });
    const [header, payload] = read.verdict_token!.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(86)}`;
    expect(await verifyVerdict(forged, { jwksUrl, toolName: 'pay_invoice', args: { amount: 7 } })).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });

    const { privateKey } = generateKeyPairSync('ed25519');
    const foreign = await new SignJWT({ tool: 'pay_invoice', args_sha256: 'x', allowed: true })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'other', typ: 'tollgate-verdict+jwt' })
      .setJti('x')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    expect(await verifyVerdict(foreign, { jwksUrl, toolName: 'pay_invoice', args: { amount: 7 } })).toMatchObject({
      ok: false,
      reason: 'unknown_key',
    });
    expect(await verifyVerdict('not-a-token', { jwksUrl, toolName: 'pay_invoice', args: {} })).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
    expect(
      await verifyVerdict(read.verdict_token!, {
        jwksUrl: 'http://127.0.0.1:9/jwks.json',
        toolName: 'pay_invoice',
        args: { amount: 7 },
      }),
    ).toMatchObject({ ok: false, reason: 'unknown_key' });
  });

  it('verifies with the keys given in hand as well as by URL', async () => {
    const { read } = await decided({ amount: 8 }, { decision: 'approve' });
    const jwks = (await (await fetch(jwksUrl)).json()) as { keys: [] };
    expect(
      await verifyVerdict(read.verdict_token!, { keys: jwks, toolName: 'pay_invoice', args: { amount: 8 } }),
    ).toMatchObject({ ok: true });
    expect(
      await verifyVerdict(read.verdict_token!, { keys: jwks.keys, toolName: 'pay_invoice', args: { amount: 8 } }),
    ).toMatchObject({ ok: true });
  });

  it('lists final rows with their tokens and pending ones without', async () => {
    await t.api('/v1/requests', { body: { tool_name: 'pay_invoice', tool_args: { amount: 1 } } });
    const { items } = (await (await t.api('/v1/requests?limit=50')).json()) as { items: ApiRow[] };
    for (const item of items) expect(item.verdict_token === null).toBe(item.status === 'pending');
  });
});

describe('rows changed behind the gateway', () => {
  it('signs no approval for a status flipped by hand in confirmation_requests', async () => {
    const { id } = (await (
      await t.api('/v1/requests', { body: { tool_name: 'pay_invoice', tool_args: { amount: 66 } } })
    ).json()) as { id: string };
    const db = new Database(t.dbPath);
    try {
      db.prepare(
        "UPDATE confirmation_requests SET status = 'approved', allowed = 1, responded_by = 'web:mallory', responded_at = updated_at WHERE id = ?",
      ).run(id);
    } finally {
      db.close();
    }
    // Put back as pending at the end: the list test, in whatever order it runs, speaks of rows the gateway settled.
    onTestFinished(() => {
      const back = new Database(t.dbPath);
      try {
        back
          .prepare(
            "UPDATE confirmation_requests SET status = 'pending', allowed = NULL, responded_by = NULL, responded_at = NULL WHERE id = ?",
          )
          .run(id);
      } finally {
        back.close();
      }
    });
    const read = (await (await t.api(`/v1/requests/${id}`)).json()) as ApiRow;
    expect(read.status).toBe('approved');
    expect(read.verdict_token).toBeNull();
  });
});

describe('signed audit anchors', () => {
  it('GET /v1/audit/head carries a signature over its fields by a key of the JWKS', async () => {
    // An event of its own, so there is a head whichever test ran before.
    await t.api('/v1/requests', { body: { tool_name: 'pay_invoice', tool_args: { amount: 2 } } });
    const head = (await (await t.api('/v1/audit/head')).json()) as AuditAnchor;
    expect(head.signature).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(await verifyAnchor(head, { jwksUrl })).toEqual({ ok: true });
    expect(await verifyAnchor({ ...head, hash: '0'.repeat(64) }, { jwksUrl })).toMatchObject({
      ok: false,
      reason: 'mismatch',
    });
    expect(await verifyAnchor({ ...head, signature: null }, { jwksUrl })).toMatchObject({
      ok: false,
      reason: 'unsigned',
    });
  });
});
