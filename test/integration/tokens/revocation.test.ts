import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.js';

let dir: string;
const children: ChildGateway[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) await child.kill();
  rmSync(dir, { recursive: true, force: true });
});

async function start(dbPath: string): Promise<ChildGateway> {
  const child = await startChildGateway(dbPath);
  children.push(child);
  return child;
}

function as(gateway: ChildGateway, secret: string, path: string): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${secret}` } });
}

describe('revocation on every replica', () => {
  it('a token revoked on one gateway process is refused by another on its next call, and after a restart', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-revoke-'));
    const dbPath = join(dir, 'tollgate.db');
    const a = await start(dbPath);
    const b = await start(dbPath);

    const created = await a.api('/v1/tokens', { body: { name: 'auditor', scopes: ['audit:read'] } });
    expect(created.status).toBe(201);
    const { id, secret } = (await created.json()) as { id: string; secret: string };
    const kept = (
      (await (await a.api('/v1/tokens', { body: { name: 'kept', scopes: ['audit:read'] } })).json()) as {
        secret: string;
      }
    ).secret;

    // B knows the token the moment A created it (one database, no cache to warm) and uses it twice.
    expect((await as(b, secret, '/v1/requests')).status).toBe(200);
    expect((await as(b, secret, '/v1/requests')).status).toBe(200);

    expect((await a.api(`/v1/tokens/${id}`, { method: 'DELETE' })).status).toBe(204);
    const refused = await as(b, secret, '/v1/requests');
    expect(refused.status, 'B refuses on the very next call').toBe(401);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect((await as(b, kept, '/v1/requests')).status, 'other tokens are untouched').toBe(200);

    // B lists the revocation A made.
    const listed = (
      (await (await b.api('/v1/tokens')).json()) as { items: { name: string; revoked_at: string | null }[] }
    ).items;
    expect(listed.find((t) => t.name === 'auditor')?.revoked_at).toEqual(expect.any(String));

    await a.kill();
    await b.kill();
    const restarted = await start(dbPath);
    expect((await as(restarted, secret, '/v1/requests')).status, 'still refused after a restart').toBe(401);
    expect((await as(restarted, kept, '/v1/requests')).status).toBe(200);
  }, 90_000); // child gateway processes start and restart: 10 s alone, past 30 s under a full run on 2 cores
});
