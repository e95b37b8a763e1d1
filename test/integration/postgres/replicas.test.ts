/**
 * Replicas on one PostgreSQL database, as real `tollgate serve` processes: without `REDIS_URL` a second replica
 * refuses to start and says why; a killed replica's lock dies with it; with `REDIS_URL` (a private queue prefix on
 * the local Redis) two replicas run side by side and a decision on one wakes a long-poll on the other.
 *
 * Over 30 s: about a dozen `tollgate serve` processes started and stopped (a second or more each on two loaded cores),
 * and a killed replica's lock waited out; it runs in vitest.config.ts's `waiting` project.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.js';
import { queuePrefix } from '../../helpers/queue-prefix.js';
import { freshDatabase, truncateAll, type FreshDatabase } from './fresh-database.js';

let database: FreshDatabase;
const running: ChildGateway[] = [];

async function start(env: Record<string, string> = {}): Promise<ChildGateway> {
  const gateway = await startChildGateway(database.url, env);
  running.push(gateway);
  return gateway;
}

beforeAll(async () => {
  database = await freshDatabase({ migrate: true });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.kill('SIGKILL')));
  await truncateAll(database.url);
});
afterAll(async () => {
  await database?.drop();
});

describe('replicas on one PostgreSQL database', () => {
  it('refuses a second replica without REDIS_URL, naming REDIS_URL and the running replica', async () => {
    await start();
    const refused = await startChildGateway(database.url).then(
      (g) => (running.push(g), 'started'),
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/exited with 1 before listening/);
    expect(refused).toMatch(/this one has no REDIS_URL: replicas sharing a database need REDIS_URL/);
    expect(refused).toMatch(/running on this database \(tollgate@/);
  });

  it('refuses a replica with REDIS_URL beside one without it', async () => {
    await start();
    const refused = await startChildGateway(database.url, {
      REDIS_URL: 'redis://127.0.0.1:6379',
      TOLLGATE_QUEUE_PREFIX: queuePrefix(),
    }).then(
      (g) => (running.push(g), 'started'),
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/a tollgate replica without REDIS_URL is running on this database/);
  });

  it('starts again at once after the only replica was killed with SIGKILL', async () => {
    const first = await start();
    expect(await first.kill('SIGKILL')).toBeNull();
    const second = await start();
    expect((await second.api('/readyz')).status).toBe(200);
  });

  it('gives one verdict and one verdict event for 40 decisions split over two replicas', async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', TOLLGATE_QUEUE_PREFIX: queuePrefix() };
    const [a, b] = await Promise.all([start(env), start(env)]);
    const { id } = (await (
      await a!.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { env: 'prod' } } })
    ).json()) as { id: string };
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? b! : a!)
          .api(`/v1/requests/${id}/decision`, { body: { decision: i % 3 ? 'approve' : 'deny', approver: `web:u${i}` } })
          .then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(39);
    const events = await fetch(`${b!.url}/v1/requests/${id}/events`, {
      headers: { authorization: `Bearer ${b!.token}`, accept: 'application/json' },
    });
    const { items } = (await events.json()) as { items: { type: string }[] };
    expect(items.filter((e) => e.type === 'approved' || e.type === 'denied')).toHaveLength(1);
  });

  it('counts a quorum of 2 raced by 12 approvers over two replicas as exactly 2 approvals, and 20 creates with one key as one row', async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', TOLLGATE_QUEUE_PREFIX: queuePrefix() };
    const [a, b] = await Promise.all([start(env), start(env)]);
    const { id } = (await (
      await a!.api('/v1/requests', { body: { tool_name: 'wire', tool_args: { amount: 9 }, required_approvals: 2 } })
    ).json()) as { id: string };
    const votes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? b! : a!)
          .api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: `web:u${i}` } })
          .then((r) => r.status),
      ),
    );
    expect(votes.filter((s) => s === 200)).toHaveLength(2); // the first approval (recorded) and the one completing the quorum
    const events = await fetch(`${a!.url}/v1/requests/${id}/events`, {
      headers: { authorization: `Bearer ${a!.token}`, accept: 'application/json' },
    });
    const { items } = (await events.json()) as { items: { type: string }[] };
    expect(items.filter((e) => e.type === 'approved')).toHaveLength(2);

    const key = `same-${randomUUID()}`;
    const creates = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? b! : a!)
          .api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { env: 'prod' }, idempotency_key: key } })
          .then(async (r) => ({ status: r.status, id: ((await r.json()) as { id: string }).id })),
      ),
    );
    expect(new Set(creates.map((c) => c.id)).size).toBe(1);
    expect(creates.filter((c) => c.status === 201)).toHaveLength(1);
  });

  it('expires the pending requests of a replica killed with SIGKILL on the other one', async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', TOLLGATE_QUEUE_PREFIX: queuePrefix() };
    const [a, b] = await Promise.all([start(env), start(env)]);
    // Real time, 2 s: the replicas are child processes and Redis runs the delayed expiry job, so no ManualClock reaches them.
    const { id } = (await (
      await a!.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { env: 'prod' }, timeout_s: 2 } })
    ).json()) as { id: string };
    await a!.kill('SIGKILL');
    const answer = (await (await b!.api(`/v1/requests/${id}?wait=20`)).json()) as { status: string; allowed: boolean };
    expect(answer).toMatchObject({ status: 'expired', allowed: false });
  });

  it('runs two replicas with REDIS_URL; a decision on one wakes a long-poll on the other', async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', TOLLGATE_QUEUE_PREFIX: queuePrefix() };
    const [a, b] = await Promise.all([start(env), start(env)]);
    const created = await a!.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { env: 'prod' } } });
    const { id } = (await created.json()) as { id: string };
    const waiting = b!.api(`/v1/requests/${id}?wait=20`);
    await new Promise((r) => setTimeout(r, 200));
    const decided = await a!.api(`/v1/requests/${id}/decision`, {
      body: { decision: 'approve', approver: 'web:alice' },
    });
    expect(decided.status).toBe(200);
    const started = Date.now();
    const answer = (await (await waiting).json()) as { status: string };
    expect(answer.status).toBe('approved');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
