/**
 * The signing key's settings on a running gateway: an explicit `TOLLGATE_SIGNING_KEY` wins over the stored one, a bad
 * one stops the start naming the variable, a rotation keeps the old public key published through
 * `TOLLGATE_SIGNING_KEYS_RETIRED`, `TOLLGATE_VERDICT_TTL_S` sets the expiry, and a quorum's token names every approver.
 */
import { Database } from '../../../src/stores/sqlite/driver.js';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader, exportJWK, calculateJwkThumbprint } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyVerdict } from '../../../src/verify/index.js';
import { startChildGateway } from '../../helpers/child-gateway.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let dir: string;
const open: TestServer[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-signing-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
  rmSync(dir, { recursive: true, force: true });
});

const newKeyPem = () => generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
async function start(env: Record<string, string> = {}): Promise<TestServer> {
  const t = await startTestServer({ dbPath: join(dir, 'tollgate.db'), env });
  open.push(t);
  return t;
}
async function approve(
  t: TestServer,
  body: Record<string, unknown> = {},
  approvers = ['web:alice'],
): Promise<{ id: string; verdict_token: string }> {
  const { id } = (await (
    await t.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { env: 'prod' }, approvers, ...body } })
  ).json()) as { id: string };
  let last: Response | undefined;
  for (const approver of approvers)
    last = await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver } });
  return (await last!.json()) as { id: string; verdict_token: string };
}
const jwksOf = async (t: TestServer) =>
  (await (await fetch(`${t.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };

describe('signing key settings', () => {
  it('signs with TOLLGATE_SIGNING_KEY when set, and stores no key of its own', async () => {
    const pem = newKeyPem();
    const t = await start({ TOLLGATE_SIGNING_KEY: pem });
    const { verdict_token } = await approve(t);
    const { createPublicKey } = await import('node:crypto');
    const publicJwk = await exportJWK(createPublicKey(pem));
    const kid = await calculateJwkThumbprint(publicJwk);
    expect(decodeProtectedHeader(verdict_token).kid).toBe(kid);
    expect((await jwksOf(t)).keys.map((k) => k.kid)).toEqual([kid]);
    expect(
      await verifyVerdict(verdict_token, { keys: [{ ...publicJwk, kid }], toolName: 'deploy', args: { env: 'prod' } }),
    ).toMatchObject({ ok: true });
    const stored = new Database(t.dbPath, { readonly: true })
      .prepare("SELECT count(*) AS n FROM deployment_secrets WHERE name = 'verdict_signing'")
      .get() as { n: number };
    expect(stored.n).toBe(0);
  });

  it('refuses to start on a bad key or TTL, naming the variable', async () => {
    await expect(start({ TOLLGATE_SIGNING_KEY: 'not a key' })).rejects.toThrow(
      /^TOLLGATE_SIGNING_KEY: not a usable private key/,
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    await expect(start({ TOLLGATE_SIGNING_KEY: rsa })).rejects.toThrow(
      /^TOLLGATE_SIGNING_KEY: an rsa key; verdicts are signed with Ed25519 only/,
    );
    await expect(start({ TOLLGATE_VERDICT_TTL_S: 'soon' })).rejects.toThrow(
      /^TOLLGATE_VERDICT_TTL_S: must be a positive whole number/,
    );
  });

  it('says so on the command line too, and exits', async () => {
    await expect(startChildGateway(join(dir, 'cli.db'), { TOLLGATE_SIGNING_KEY: '{"kty":"RSA"}' })).rejects.toThrow(
      /TOLLGATE_SIGNING_KEY: /,
    );
  });

  it('keeps verifying tokens of a retired key after a rotation', async () => {
    const before = await start();
    const old = await approve(before);
    const retired = JSON.stringify(await jwksOf(before));
    await before.close();
    open.splice(0);

    const after = await start({ TOLLGATE_SIGNING_KEY: newKeyPem(), TOLLGATE_SIGNING_KEYS_RETIRED: retired });
    const fresh = await approve(after);
    const jwks = await jwksOf(after);
    expect(jwks.keys).toHaveLength(2);
    expect(jwks.keys[0]!.kid).toBe(decodeProtectedHeader(fresh.verdict_token).kid);
    expect(jwks.keys[1]!.kid).toBe(decodeProtectedHeader(old.verdict_token).kid);
    const jwksUrl = `${after.url}/.well-known/jwks.json`;
    for (const token of [old.verdict_token, fresh.verdict_token])
      expect(await verifyVerdict(token, { jwksUrl, toolName: 'deploy', args: { env: 'prod' } })).toMatchObject({
        ok: true,
      });
    // A read of the old request after the rotation returns the token minted when it settled, as stored: nothing
    // signs a row read back (docs/audit.md, "Signed where it is witnessed"); the retired key keeps it verifiable.
    const reread = (await (await after.api(`/v1/requests/${old.id}`)).json()) as { verdict_token: string };
    expect(reread.verdict_token).toBe(old.verdict_token);
  });

  it('signs rows settled by a policy, a cancel and a quorum after a restart (read cold, checked against their events)', async () => {
    const policy =
      'policies:\n  - name: reads\n    match: { tool: "read_*" }\n    decision: allow\ndefault: { decision: ask }\n';
    const first = await startTestServer({ dbPath: join(dir, 'tollgate.db'), policy });
    open.push(first);
    const allowed = (await (
      await first.api('/v1/requests', { body: { tool_name: 'read_file', tool_args: { path: '/a' } } })
    ).json()) as { id: string; status: string; verdict_token: string | null };
    expect(allowed.status).toBe('approved');
    expect(allowed.verdict_token).not.toBeNull();
    const pending = (await (
      await first.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: {} } })
    ).json()) as { id: string };
    expect((await first.api(`/v1/requests/${pending.id}/cancel`, { body: { reason: 'not today' } })).status).toBe(200);
    const quorum = await approve(first, { required_approvals: 2 }, ['web:alice', 'web:bob']);
    await first.close();
    open.splice(0);

    const again = await startTestServer({ dbPath: join(dir, 'tollgate.db'), policy });
    open.push(again);
    const jwksUrl = `${again.url}/.well-known/jwks.json`;
    const read = async (id: string) =>
      (await (await again.api(`/v1/requests/${id}`)).json()) as { verdict_token: string | null };
    expect((await read(allowed.id)).verdict_token).toBe(allowed.verdict_token);
    expect(
      await verifyVerdict((await read(pending.id)).verdict_token!, { jwksUrl, toolName: 'deploy', args: {} }),
    ).toMatchObject({ ok: false, reason: 'denied' });
    expect((await read(quorum.id)).verdict_token).toBe(quorum.verdict_token);
    const { items } = (await (await again.api('/v1/requests')).json()) as { items: { verdict_token: string | null }[] };
    expect(items.map((i) => i.verdict_token === null)).toEqual([false, false, false]);
  });

  it('takes its expiry from TOLLGATE_VERDICT_TTL_S and names every approver of a quorum', async () => {
    const t = await start({ TOLLGATE_VERDICT_TTL_S: '120' });
    const { verdict_token } = await approve(t, { required_approvals: 2 }, ['web:alice', 'web:bob']);
    const result = await verifyVerdict(verdict_token, {
      jwksUrl: `${t.url}/.well-known/jwks.json`,
      toolName: 'deploy',
      args: { env: 'prod' },
    });
    expect(result).toMatchObject({
      ok: true,
      claims: { people: ['web:alice', 'web:bob'], accounts: ['web:alice', 'web:bob'], allowed: true },
    });
    if (result.ok) expect(result.claims.exp - result.claims.iat).toBe(120);
  });
});
