import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signCallback } from '../../../src/gateway/callback-job.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** A runtime's webhook receiver that fails the first `failures` calls with HTTP 500. */
function runtimeReceiver(failures: number) {
  const calls: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      calls.push({ headers: req.headers, body });
      res.statusCode = calls.length <= failures ? 500 : 204;
      res.end();
    });
  });
  return {
    calls,
    async url() {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let t: TestServer;
let receiver: ReturnType<typeof runtimeReceiver>;
const secret = 'callback-secret';

beforeEach(async () => {
  receiver = runtimeReceiver(2);
  t = await startTestServer({
    scheduler: new InProcessScheduler({ backoffMs: 5, attempts: 5, sweepEveryMs: 0 }),
    env: { TOLLGATE_CALLBACK_SECRET: secret, TOLLGATE_CALLBACK_ALLOW: '127.0.0.1' },
  });
});
afterEach(async () => {
  await t.close();
  await receiver.close();
});

describe('callback_url webhooks', () => {
  it('posts the verdict signed, retrying failures and recording every attempt', async () => {
    const callbackUrl = await receiver.url();
    const created = (await (
      await t.api('/v1/requests', { body: { tool_name: 'deploy', callback_url: callbackUrl } })
    ).json()) as { id: string };
    await t.api(`/v1/requests/${created.id}/decision`, { body: { decision: 'approve', approver: 'web:alice' } });
    await eventually(() => expect(receiver.calls).toHaveLength(3));
    const last = receiver.calls[2]!;
    const timestamp = String(last.headers['x-tollgate-timestamp']);
    expect(last.headers['x-tollgate-signature']).toBe(signCallback(secret, timestamp, last.body));
    const payload = JSON.parse(last.body) as {
      type: string;
      request: { id: string; status: string; allowed: boolean };
    };
    expect(payload).toMatchObject({
      type: 'confirmation.decided',
      request: { id: created.id, status: 'approved', allowed: true },
    });
    await eventually(async () => {
      const events = (await t.store.events(created.id)).filter((e) => e.type.startsWith('callback_'));
      expect(events.map((e) => [e.type, e.detail.attempt])).toEqual([
        ['callback_failed', 1],
        ['callback_failed', 2],
        ['callback_sent', 3],
      ]);
    });
  });
});
