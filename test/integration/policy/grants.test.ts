import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["web:alice"]
    grants:
      - { label: "Approve for 1 hour", ttl_s: 3600, scope: [tool_name, agent_id, args.env] }
  - name: payments
    match: { tool: "payments.*" }
    approvers: ["web:alice"]
    grants: none
`;

let dir: string;
let clock: ManualClock;
let t: TestServer;

async function start(dbPath?: string) {
  return startTestServer({ clock, scheduler: new InProcessScheduler({ clock }), dbPath, policy: POLICY });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-grants-'));
  clock = new ManualClock(Date.parse('2026-11-23T09:00:00Z'));
  t = await start(join(dir, 'tollgate.db'));
});
afterEach(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

async function file(tool: string, agent: string, env = 'staging'): Promise<Record<string, unknown>> {
  const response = await t.api('/v1/requests', { body: { tool_name: tool, tool_args: { env }, agent_id: agent } });
  expect(response.status).toBe(201);
  return (await response.json()) as Record<string, unknown>;
}

async function approve(id: unknown, grant?: string) {
  return t.api(`/v1/requests/${String(id)}/decision`, {
    body: { decision: 'approve', approver: 'web:alice', ...(grant ? { grant } : {}) },
  });
}

async function grantGiven(): Promise<{ id: string; grant: Record<string, unknown> }> {
  const first = await file('deploy', 'release-bot');
  expect(first.status).toBe('pending');
  const response = await approve(first.id, 'Approve for 1 hour');
  expect(response.status).toBe(200);
  const listed = (await (await t.api('/v1/grants')).json()) as { items: Record<string, unknown>[] };
  expect(listed.items).toHaveLength(1);
  return { id: first.id as string, grant: listed.items[0]! };
}

describe('standing grants', () => {
  it('approving with a grant button writes a grants row and grant_created; a later request with the same scoped values is approved at once by grant:<id>', async () => {
    const { id, grant } = await grantGiven();
    expect(grant).toMatchObject({
      rule: 'deploys',
      label: 'Approve for 1 hour',
      scope: { tool_name: 'deploy', agent_id: 'release-bot', 'args.env': 'staging' },
      request_id: id,
      created_by: 'web:alice',
      expires_at: '2026-11-23T10:00:00.000Z',
      uses: 0,
    });
    const created = (await t.store.events(id)).find((e) => e.type === 'grant_created');
    expect(created).toMatchObject({ actor: 'web:alice', detail: { grant: grant.id, rule: 'deploys' } });

    const again = await file('deploy', 'release-bot');
    expect(again).toMatchObject({
      status: 'approved',
      allowed: true,
      responded_by: `grant:${String(grant.id)}`,
      responded_via: 'grant',
    });
    const events = await t.store.events(again.id as string);
    expect(events.map((e) => e.type)).toEqual(['created', 'approved']);
    expect(events[1]!.detail).toMatchObject({ grant: grant.id, rule: 'deploys' });
    expect(((await (await t.api('/v1/grants')).json()) as { items: { uses: number }[] }).items[0]!.uses).toBe(1);
  });

  it('another value for a scoped field is asked as usual', async () => {
    await grantGiven();
    expect((await file('deploy', 'other-bot')).status).toBe('pending');
    expect((await file('deploy', 'release-bot', 'production')).status).toBe('pending');
  });

  it('a grant never outlives expires_at', async () => {
    await grantGiven();
    await clock.advance(3600_000);
    expect((await file('deploy', 'release-bot')).status).toBe('pending');
    expect(((await (await t.api('/v1/grants')).json()) as { items: unknown[] }).items).toEqual([]);
    expect(((await (await t.api('/v1/grants?all=true')).json()) as { items: unknown[] }).items).toHaveLength(1);
  });

  it('DELETE /v1/grants/:id revokes at once, with grant_revoked on the origin request', async () => {
    const { id, grant } = await grantGiven();
    expect((await t.api(`/v1/grants/${String(grant.id)}`, { method: 'DELETE' })).status).toBe(204);
    expect((await file('deploy', 'release-bot')).status).toBe('pending');
    expect((await t.store.events(id)).find((e) => e.type === 'grant_revoked')).toMatchObject({
      actor: 'api:admin',
      detail: { grant: grant.id },
    });
    expect((await t.api('/v1/grants/nope', { method: 'DELETE' })).status).toBe(404);
  });

  it('grants survive a restart, and a revocation does too', async () => {
    const { grant } = await grantGiven();
    await t.close();
    t = await start(join(dir, 'tollgate.db'));
    expect((await file('deploy', 'release-bot')).responded_by).toBe(`grant:${String(grant.id)}`);
    expect((await t.api(`/v1/grants/${String(grant.id)}`, { method: 'DELETE' })).status).toBe(204);
    await t.close();
    t = await start(join(dir, 'tollgate.db'));
    expect((await file('deploy', 'release-bot')).status).toBe('pending');
  });

  it('a label the rule does not offer, or a grants: none rule, is a 400 naming grant, and nothing is decided', async () => {
    const deploy = await file('deploy', 'release-bot');
    const wrong = await approve(deploy.id, 'Approve forever');
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain(
      'grant: rule \\"deploys\\" offers \\"Approve for 1 hour\\", not \\"Approve forever\\"',
    );
    const payment = await file('payments.send', 'billing');
    const refused = await approve(payment.id, 'Approve for 1 hour');
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('rule \\"payments\\" offers no grants (grants: none)');
    expect((await t.gateway.get(payment.id as string))!.status).toBe('pending');
    expect(((await (await t.api('/v1/grants')).json()) as { items: unknown[] }).items).toEqual([]);
  });
});
