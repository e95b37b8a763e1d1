/**
 * Four eyes counted by person across channels and replicas: alice's Feishu tap (signed and encrypted as Feishu sends
 * it) after her web approval, and her second account on another replica of the same PostgreSQL database, are refused.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeFeishuHarness } from '../../fakes/feishu/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';
import { sharedRedisEnv } from '../postgres/replica-pair.js';

const CONFIG = `
defaults: { channels: [{ type: web }] }
people:
  - { id: alice, accounts: { feishu: ou_alice, web: alice, slack: U0ALICE } }
  - { id: bob, accounts: { feishu: ou_bob, web: bob } }
`;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});
let database: FreshDatabase | null = null;
afterAll(async () => {
  await database?.drop();
});

const decideAs = (t: TestServer, id: string, approver: string) =>
  t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver } });

describe('four eyes across channels and replicas', () => {
  it('refuses alice’s Feishu tap after her web approval, and takes bob’s', async () => {
    const feishu = await makeFeishuHarness();
    open.push(feishu);
    const t = await startTestServer({
      channels: [feishu.channel],
      policy: CONFIG.replace('{ type: web }', `{ type: feishu, target: "${feishu.target}" }`),
    });
    open.push(t);
    const res = await t.api('/v1/requests', {
      body: {
        tool_name: 'pay',
        tool_args: { amount: 10 },
        approvers: ['person:alice', 'person:bob'],
        required_approvals: 2,
      },
    });
    const { id } = (await res.json()) as { id: string };
    expect((await decideAs(t, id, 'web:alice')).status).toBe(200);
    const request = (await t.gateway.get(id))!;
    await eventually(() => expect(feishu.fake.messageFor(id)).not.toBeNull());
    const answer = await feishu.tapAnswer(t, request, 'approve', 'ou_alice');
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).toContain('web:alice');
    expect(await t.gateway.get(id)).toMatchObject({ status: 'pending' });
    await feishu.tapAnswer(t, request, 'approve', 'ou_bob');
    expect(await t.gateway.get(id)).toMatchObject({
      status: 'approved',
      respondedBy: 'feishu:ou_bob',
      respondedByPerson: 'bob',
    });
  });

  it('refuses alice’s second account on another replica of the same database', async () => {
    database = await freshDatabase({ migrate: true });
    const env = sharedRedisEnv();
    const a = await startTestServer({ dbPath: database.url, policy: CONFIG, env });
    open.push(a);
    const b = await startTestServer({ dbPath: database.url, policy: CONFIG, env });
    open.push(b);
    const res = await a.api('/v1/requests', {
      body: {
        tool_name: 'pay',
        tool_args: { amount: 10 },
        approvers: ['person:alice', 'person:bob'],
        required_approvals: 2,
      },
    });
    const { id } = (await res.json()) as { id: string };
    expect((await decideAs(a, id, 'slack:U0ALICE')).status).toBe(200);
    const second = await decideAs(b, id, 'web:alice');
    expect(second.status).toBe(409);
    expect(((await second.json()) as { detail: string }).detail).toContain('slack:U0ALICE');
    expect((await decideAs(b, id, 'web:bob')).status).toBe(200);
    expect(await a.gateway.get(id)).toMatchObject({ status: 'approved', respondedByPerson: 'bob' });
    expect((await a.store.events(id)).filter((e) => e.type === 'approved').map((e) => e.detail.person)).toEqual([
      'alice',
      'bob',
    ]);
  });
});
