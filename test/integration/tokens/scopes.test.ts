import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import type { Scope } from '../../../src/tokens/scopes.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

/** Calls the API with another token than the admin one. */
function as(
  secret: string,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  return t.api(path, { ...init, headers: { ...init.headers, authorization: `Bearer ${secret}` } });
}

async function token(name: string, scopes: Scope[], extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.api('/v1/tokens', { body: { name, scopes, ...extra } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { secret: string }).secret;
}

async function file(secret: string, approvers = ['web:alice']): Promise<string> {
  const res = await as(secret, '/v1/requests', {
    body: { tool_name: 'deploy', tool_args: { env: 'prod' }, approvers },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe('scoped tokens: each route allows and refuses by scope', () => {
  it('applies the route → scope table', async () => {
    const agent = await token('agent', ['request:create', 'request:read', 'request:cancel']);
    const id = await file(agent);
    const secrets: Record<string, string> = {
      create: await token('creator', ['request:create']),
      read: await token('reader', ['request:read']),
      decide: await token('alice-bridge', ['request:decide'], { as: 'web:alice' }),
      audit: await token('auditor', ['audit:read']),
      cancel: await token('canceller', ['request:cancel']),
      admin: t.token,
    };
    const routes: { name: string; call: (s: string) => Promise<Response>; allowed: string[] }[] = [
      {
        name: 'POST /v1/requests',
        call: (s) => as(s, '/v1/requests', { body: { tool_name: 'x' } }),
        allowed: ['create', 'admin'],
      },
      { name: 'GET /v1/requests', call: (s) => as(s, '/v1/requests'), allowed: ['audit', 'admin'] },
      {
        name: 'GET /v1/requests/export',
        call: (s) => as(s, '/v1/requests/export?format=ndjson'),
        allowed: ['audit', 'admin'],
      },
      // alice's decide token sees this request because alice is one of its approvers (the card shows it to her too).
      { name: 'GET /v1/requests/:id', call: (s) => as(s, `/v1/requests/${id}`), allowed: ['audit', 'admin', 'decide'] },
      { name: 'GET /v1/tokens', call: (s) => as(s, '/v1/tokens'), allowed: ['admin'] },
      {
        name: 'POST /v1/tokens',
        call: (s) =>
          as(s, '/v1/tokens', { body: { name: `t-${Math.random()}`.replace('.', ''), scopes: ['audit:read'] } }),
        allowed: ['admin'],
      },
    ];
    for (const route of routes) {
      for (const [who, secret] of Object.entries(secrets)) {
        const res = await route.call(secret);
        const ok = res.status < 300;
        // Reading a request another token filed is a 404 (its existence is not revealed), the rest a 403.
        expect({ route: route.name, who, ok }, `status ${res.status}`).toEqual({
          route: route.name,
          who,
          ok: route.allowed.includes(who),
        });
        if (!ok) expect([403, 404]).toContain(res.status);
      }
    }
  });

  it('lets an agent token read and cancel only what it filed, and never decide', async () => {
    const agent = await token('agent', ['request:create', 'request:read', 'request:cancel']);
    const other = await token('other-agent', ['request:create', 'request:read', 'request:cancel']);
    const mine = await file(agent);
    const theirs = await file(other);
    expect(((await (await as(agent, `/v1/requests/${mine}`)).json()) as { filed_by: string }).filed_by).toBe('agent');
    expect((await as(agent, `/v1/requests/${theirs}`)).status).toBe(404);
    // A long-poll is the same read: refused at once, never parked on a request the token may not see.
    expect((await as(agent, `/v1/requests/${theirs}?wait=30`)).status).toBe(404);
    expect((await as(agent, `/v1/requests/${theirs}/cancel`, { body: {} })).status).toBe(404);
    const decided = await as(agent, `/v1/requests/${mine}/decision`, {
      body: { decision: 'approve', approver: 'web:alice' },
    });
    expect(decided.status).toBe(403);
    expect(((await (await t.api(`/v1/requests/${mine}`)).json()) as { status: string }).status).toBe('pending');
    expect((await as(agent, `/v1/requests/${mine}/cancel`, { body: {} })).status).toBe(200);
  });
});

describe('reading as an approver', () => {
  it('lets a decide token read the requests its identity may decide, and nothing else (404)', async () => {
    const agent = await token('agent', ['request:create', 'request:read']);
    const alice = await token('alice-bridge', ['request:decide'], { as: 'web:alice' });
    const hers = await file(agent, ['web:alice']);
    const notHers = await file(agent, ['web:bob']);
    expect((await as(alice, `/v1/requests/${hers}`)).status).toBe(200);
    expect((await as(alice, `/v1/requests/${hers}/events`, { headers: { accept: 'application/json' } })).status).toBe(
      200,
    );
    expect((await as(alice, `/v1/requests/${notHers}`)).status).toBe(404);
    expect((await as(alice, `/v1/requests/${notHers}?wait=30`)).status).toBe(404);
    expect(((await (await as(alice, `/v1/requests/${hers}?wait=0.05`)).json()) as { status: string }).status).toBe(
      'pending',
    );
    expect(
      (await as(alice, `/v1/requests/${notHers}/events`, { headers: { accept: 'application/json' } })).status,
    ).toBe(404);
    expect((await as(alice, '/v1/requests')).status).toBe(403);
  });
});

describe('decisions over the API', () => {
  it('lets a decide token decide only as its bound identity, recorded as "api" with the token name', async () => {
    const agent = await token('agent', ['request:create', 'request:read']);
    const alice = await token('alice-bridge', ['request:decide'], { as: 'web:alice' });
    const id = await file(agent, ['web:alice', 'slack:UCFO']);
    const impersonation = await as(alice, `/v1/requests/${id}/decision`, {
      body: { decision: 'approve', approver: 'slack:UCFO' },
    });
    expect(impersonation.status).toBe(403);
    expect(((await impersonation.json()) as { detail: string }).detail).toContain('web:alice');

    const res = await as(alice, `/v1/requests/${id}/decision`, { body: { decision: 'approve', reason: 'ok' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'approved',
      responded_by: 'web:alice',
      responded_via: 'api',
      filed_by: 'agent',
    });
    const events = (await (
      await t.api(`/v1/requests/${id}/events`, { headers: { accept: 'application/json' } })
    ).json()) as { items: { type: string; channel: string; detail: Record<string, unknown> }[] };
    expect(events.items.find((e) => e.type === 'approved')).toMatchObject({
      channel: 'api',
      detail: { token: 'alice-bridge' },
    });
  });

  it('never records an admin decision as a chat tap', async () => {
    const id = await file(t.token, ['slack:UCFO']);
    const res = await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: 'slack:UCFO' } });
    expect(await res.json()).toMatchObject({ status: 'approved', responded_by: 'slack:UCFO', responded_via: 'api' });
  });

  it('refuses a decide token approving a request it filed itself', async () => {
    const both = await token('sloppy', ['request:create', 'request:decide'], { as: 'web:alice' });
    const id = await file(both);
    const res = await as(both, `/v1/requests/${id}/decision`, { body: { decision: 'approve' } });
    expect(res.status).toBe(403);
    expect(((await (await t.api(`/v1/requests/${id}`)).json()) as { status: string }).status).toBe('pending');
  });
});

describe('token management', () => {
  it('stores no secret, lists without secrets, and revokes at once', async () => {
    const secret = await token('short-lived', ['audit:read']);
    expect((await as(secret, '/v1/requests')).status).toBe(200);
    const list = (await (await t.api('/v1/tokens')).json()) as { items: Record<string, unknown>[] };
    const listed = list.items.find((i) => i.name === 'short-lived')!;
    expect(listed).not.toHaveProperty('secret');
    expect(JSON.stringify(list)).not.toContain(secret);
    expect((await t.api(`/v1/tokens/${String(listed.id)}`, { method: 'DELETE' })).status).toBe(204);
    expect((await as(secret, '/v1/requests')).status).toBe(401);
  });

  it('keeps revocations and tokens across a restart', async () => {
    const kept = await token('kept', ['audit:read']);
    const revoked = await token('revoked', ['audit:read']);
    const id = ((await (await t.api('/v1/tokens')).json()) as { items: { id: string; name: string }[] }).items.find(
      (i) => i.name === 'revoked',
    )!.id;
    await t.api(`/v1/tokens/${id}`, { method: 'DELETE' });
    const dbPath = t.dbPath;
    await t.server.close();
    t = await startTestServer({ dbPath });
    expect((await as(kept, '/v1/requests')).status).toBe(200);
    expect((await as(revoked, '/v1/requests')).status).toBe(401);
  });

  it('ends a token at expires_in_s', async () => {
    await t.close();
    const clock = new ManualClock();
    t = await startTestServer({ clock });
    const secret = await token('hourly', ['audit:read'], { expires_in_s: 3600 });
    await clock.advance(3599_000);
    expect((await as(secret, '/v1/requests')).status).toBe(200);
    await clock.advance(1000);
    expect((await as(secret, '/v1/requests')).status).toBe(401);
  });

  it('validates the body and keeps names unique', async () => {
    const bad = await t.api('/v1/tokens', { body: { name: 'bridge', scopes: ['request:decide'] } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('as');
    const unknownScope = await t.api('/v1/tokens', { body: { name: 'x', scopes: ['root'] } });
    expect(unknownScope.status).toBe(400);
    expect((await t.api('/v1/tokens', { body: { name: 'dup', scopes: ['audit:read'] } })).status).toBe(201);
    expect((await t.api('/v1/tokens', { body: { name: 'dup', scopes: ['audit:read'] } })).status).toBe(409);
  });
});
