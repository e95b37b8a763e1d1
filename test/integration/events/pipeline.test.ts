/**
 * A sink's pipelined batches (src/events/sink.ts, delivery-window.ts): several POSTs in flight at once, each request's
 * events in order whatever order the POSTs finish in, a failed batch resent before any later event of its requests,
 * and the in-flight part bounded. A real HTTP receiver on 127.0.0.1 that holds its answers until the test gives them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { Receiver } from './receiver.js';

const SECRET = 'sink-secret-0123456789';
const CREATED = 'dev.tollgate.request.created';
const APPROVED = 'dev.tollgate.request.approved';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function setUp(clock?: ManualClock): Promise<{ t: TestServer; receiver: Receiver }> {
  const receiver = await Receiver.start();
  open.push(receiver);
  const t = await startTestServer({
    policy: `events:\n  - { url: "${receiver.url}", secret: ${SECRET} }\n`,
    env: { TOLLGATE_CALLBACK_ALLOW: '127.0.0.1' },
    clock,
  });
  open.push(t);
  await t.gateway.stream!.flush(); // the sink starts at the present
  return { t, receiver };
}

/** Files `count` requests, 50 at a time. */
async function fileMany(t: TestServer, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, async () => {
        const res = await t.api('/v1/requests', {
          body: { tool_name: 'deploy', tool_args: { env: 'prod' }, approvers: ['web:ops'] },
        });
        expect(res.status).toBe(201);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    ids.push(...batch);
  }
  return ids;
}
const approveAll = (t: TestServer, ids: string[]) =>
  Promise.all(
    ids.map((id) => t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: 'web:ops' } })),
  );

/** Every request got `created` then `approved`, by ascending event id, each once. */
function expectInOrder(receiver: Receiver, ids: string[]): void {
  const byRequest = receiver.byRequest();
  for (const id of ids) {
    const events = byRequest.get(id) ?? [];
    expect(events, id).toHaveLength(2);
    expect(events[0]!, id).toBeLessThan(events[1]!);
  }
  for (const id of ids)
    expect(receiver.received.filter((r) => r.subject === id && r.type !== CREATED).map((r) => r.type)).toContain(
      APPROVED,
    );
}

describe('event sink pipelining', () => {
  it('keeps several batches in flight and delivers each request in order, whatever order they finish in', async () => {
    const { t, receiver } = await setUp();
    receiver.hold = true;
    const ids = await fileMany(t, 40);
    await approveAll(t, ids);
    // With every answer held, the sink fills its lanes: four POSTs wait at once.
    await eventually(() => expect(receiver.held.length).toBe(4));
    while (receiver.received.length < 80 || receiver.held.length) {
      // Answer the newest first: later batches are acknowledged before earlier ones.
      for (const post of receiver.held.splice(0).reverse()) post.answer(204);
      await eventually(() =>
        expect(receiver.held.length + (receiver.received.length >= 80 ? 1 : 0)).toBeGreaterThan(0),
      );
    }
    expect(receiver.maxConcurrent).toBe(4);
    expect(
      Math.max(...receiver.received.map((r) => receiver.received.filter((o) => o.post === r.post).length)),
    ).toBeGreaterThan(1);
    expectInOrder(receiver, ids);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(80);
  });

  it('resends a failed batch before any later event of its requests, at least once, after a receiver that failed and lagged recovers', async () => {
    const clock = new ManualClock(Date.now());
    const { t, receiver } = await setUp(clock);
    receiver.hold = true;
    const ids = await fileMany(t, 40);
    await eventually(() => expect(receiver.held.length).toBe(4));
    // The second batch fails while the others lag and then succeed; the decisions are made meanwhile.
    const [first, second, ...rest] = receiver.held.splice(0);
    second!.answer(500);
    await approveAll(t, ids);
    first!.answer(204);
    for (const post of rest) post.answer(204);
    await t.gateway.stream!.flush();
    const failedLane = receiver.received.length;
    expect(t.gateway.stream!.states()[0]).toMatchObject({ failures: 1 });
    // Backing off: nothing more is sent before its time, so nothing of the failed batch's requests overtakes it.
    for (const post of receiver.held.splice(0)) post.answer(204);
    expect(receiver.received.length).toBe(failedLane);
    receiver.hold = false;
    await clock.advance(2000);
    await eventually(async () => {
      await t.gateway.stream!.flush();
      expect(receiver.byRequest().size).toBe(40);
      expectInOrder(receiver, ids);
    });
    expect(t.gateway.stream!.states()[0]).toMatchObject({ backlog: 0, lastError: null });
  });

  it('bounds what is in flight (four POSTs of at most 100 events) and counts the backlog down to 0', async () => {
    const { t, receiver } = await setUp();
    receiver.hold = true;
    const ids = await fileMany(t, 600);
    await eventually(() => expect(receiver.held.length).toBe(4));
    let most = 0;
    while (receiver.received.length < ids.length) {
      expect(receiver.held.length).toBeLessThanOrEqual(4);
      most = Math.max(most, ...receiver.held.map((p) => p.events));
      for (const post of receiver.held.splice(0)) post.answer(204);
      await eventually(() => expect(receiver.held.length > 0 || receiver.received.length >= ids.length).toBe(true));
    }
    expect(most).toBe(100);
    expect(receiver.maxConcurrent).toBe(4);
    await t.gateway.stream!.flush();
    expect(t.gateway.stream!.states()[0]).toMatchObject({ delivered: 600, backlog: 0 });
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(600);
  }, 120_000); // 600 creates: a few seconds alone, far more on a busy machine
});
