/**
 * Away windows are the database's, so replicas of one PostgreSQL database agree at once: a window set through one
 * lends the delegate a say on the other, and clearing it takes the say back before the delegate's next decision there
 * (a former delegate cannot decide for someone who is back).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';
import { sharedRedisEnv } from '../postgres/replica-pair.js';

const CONFIG = `
defaults: { channels: [{ type: web }] }
people:
  - { id: alice, accounts: { web: alice } }
  - { id: bob, accounts: { web: bob } }
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
async function file(t: TestServer): Promise<string> {
  const res = await t.api('/v1/requests', {
    body: { tool_name: 'pay', tool_args: { amount: 10 }, approvers: ['person:alice'] },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe('away windows across replicas', () => {
  it('lends and takes back the say of a delegate on every replica at once', async () => {
    database = await freshDatabase({ migrate: true });
    const env = sharedRedisEnv();
    const a = await startTestServer({ dbPath: database.url, policy: CONFIG, env });
    open.push(a);
    const b = await startTestServer({ dbPath: database.url, policy: CONFIG, env });
    open.push(b);
    const now = Date.now();
    const window = {
      from: new Date(now - 60_000).toISOString(),
      until: new Date(now + 86_400_000).toISOString(),
      delegate: 'person:bob',
    };
    // b reads the windows once before, so a cached read would be stale if a decision trusted it.
    const before = await file(b);
    expect((await decideAs(b, before, 'web:bob')).status).toBe(403);

    expect((await a.api('/v1/people/alice/away', { method: 'PUT', body: window })).status).toBe(200);
    const first = await file(a);
    const lent = await decideAs(b, first, 'web:bob');
    expect(lent.status, await lent.clone().text()).toBe(200);
    expect(await b.gateway.get(first)).toMatchObject({
      status: 'approved',
      respondedByPerson: 'bob',
      onBehalfOf: 'alice',
    });
    expect(
      ((await (await b.api('/v1/inbox?as=web:bob')).json()) as { items: { id: string }[] }).items.map((r) => r.id),
    ).toEqual([before]);

    expect((await a.api('/v1/people/alice/away', { method: 'DELETE' })).status).toBe(200);
    const second = await file(a);
    expect((await decideAs(b, second, 'web:bob')).status).toBe(403);
    expect(await b.gateway.get(second)).toMatchObject({ status: 'pending' });
    expect(((await (await b.api('/v1/inbox?as=web:bob')).json()) as { items: unknown[] }).items).toEqual([]);
  });
});
