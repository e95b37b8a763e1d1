/**
 * @module bench/scenarios/push
 * The Web Push figures, through the gateway's push channel sending to the team's push service (`test/fakes/push`,
 * which checks each message's VAPID JWT and decrypts it, as FCM would before delivering), running in the
 * orchestrator's process. alice (a person of the directory) has three devices subscribed through
 * `/v1/push/subscriptions`:
 * - `push.delivery_ms`: from the create's 201 at the load client to the first of alice's devices' messages opened at
 *   the push service, one request at a time;
 * - `push.create_ms`: the create's round trip with alice's three devices subscribed (`with_devices`) beside the same
 *   requests for an approver with no push card at all (`no_push`): what push subscribers add to the create path (the
 *   pushes themselves run on the delivery job, after the 201).
 *
 * Times cross processes on `process.hrtime` (CLOCK_MONOTONIC), as the email scenario's do.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakePushService } from '../../test/fakes/push/fake-push-service.js';
import { withGatewayBeside, type Scenario } from '../context.js';
import { BenchHttp } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN } from '../processes.js';
import { sleep, summarize, type Percentiles } from '../stats.js';
import type { ApiRequest } from './decision-resume.js';

const DEVICES = 3;
const POLICY = 'people:\n  - { id: alice, accounts: { web: alice } }\n';

const sharedNow = () => Number(process.hrtime.bigint()) / 1e6;
const sharedOffset = () => sharedNow() - performance.now();

const createBody = (i: number, approver: string) => ({
  tool_name: 'bench.deploy',
  tool_args: { service: 'api', build: i },
  timeout_s: 600,
  approvers: [approver],
});

/** Files requests one at a time; times each create, and (for alice's) its first push's arrival. */
const deliver: ClientTask = async (raw, ask) => {
  const p = raw as unknown as { url: string; token: string; count: number };
  const http = new BenchHttp(p.url, p.token, 1);
  const delivery: number[] = [];
  const withDevices: number[] = [];
  const noPush: number[] = [];
  try {
    for (let i = 0; i < p.count; i++) {
      // Interleaved, so both kinds see the same machine.
      const plainStart = performance.now();
      await http.json<ApiRequest>('POST', '/v1/requests', createBody(i, 'web:bob'), 201);
      noPush.push(performance.now() - plainStart);
      const start = performance.now();
      const request = await http.json<ApiRequest>('POST', '/v1/requests', createBody(i, 'person:alice'), 201);
      withDevices.push(request.doneAt - start);
      const arrived = (await ask('push', request.id)) as number;
      delivery.push(arrived - (request.doneAt + sharedOffset()));
    }
    return { delivery: summarize(delivery), withDevices: summarize(withDevices), noPush: summarize(noPush) };
  } finally {
    http.close();
  }
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { deliver };

/** When the first message about each request reached the push service, on {@link sharedNow}. */
function arrivals(fake: FakePushService): (requestId: string) => Promise<number> {
  const byRequest = new Map<string, number>();
  const push = fake.received.push.bind(fake.received);
  fake.received.push = (...messages) => {
    const at = sharedNow();
    for (const m of messages)
      if (typeof m.payload.request_id === 'string' && !byRequest.has(m.payload.request_id))
        byRequest.set(m.payload.request_id, at);
    return push(...messages);
  };
  return async (id) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const at = byRequest.get(id);
      if (at !== undefined) return at;
      if (Date.now() > deadline)
        throw new Error(`no push about ${id} within 30 s; problems: ${fake.problems.slice(0, 3).join('; ') || 'none'}`);
      await sleep(1);
    }
  };
}

/** `push.delivery_ms` and `push.create_ms`. */
export const pushScenario: Scenario = {
  name: 'push',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const fake = await new FakePushService().start();
    const config = join(ctx.tmp, 'push-people.yaml');
    writeFileSync(config, POLICY);
    const figures = await withGatewayBeside(
      ctx,
      'push',
      { close: () => fake.stop() },
      { TOLLGATE_CONFIG: config },
      async (gateway) => {
        const admin = new BenchHttp(gateway.url, BENCH_TOKEN, 1);
        try {
          fake.expectedKey = (await admin.json<{ public_key: string }>('GET', '/ui/push/key')).public_key;
          const { secret } = await admin.json<{ secret: string }>(
            'POST',
            '/v1/tokens',
            { name: 'alice-phone', scopes: ['request:decide'], as: 'person:alice' },
            201,
          );
          const phone = new BenchHttp(gateway.url, secret, 1);
          for (let i = 0; i < DEVICES; i++)
            await phone.json('POST', '/v1/push/subscriptions', fake.device().subscription, 201);
          phone.close();
        } finally {
          admin.close();
        }
        const arrivedAt = arrivals(fake);
        return ctx.client.run<{ delivery: Percentiles; withDevices: Percentiles; noPush: Percentiles }>(
          'push',
          'deliver',
          { url: gateway.url, token: BENCH_TOKEN, count: ctx.quick ? 100 : 500 },
          { push: async (id) => arrivedAt(String(id)) },
        );
      },
    );
    if (fake.problems.length)
      throw new Error(`push: the push service found ${fake.problems.length} bad messages: ${fake.problems[0]}`);
    const pick = (p: Percentiles) => ({ p50: p.p50, p99: p.p99, max: p.max, n: p.n });
    return {
      push: {
        devices: DEVICES,
        delivery_ms: pick(figures.delivery),
        create_ms: { with_devices: pick(figures.withDevices), no_push: pick(figures.noPush) },
      },
    };
  },
};
