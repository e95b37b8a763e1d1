/**
 * The push sender when `web-push` fails to load once (a transient error: a file it reads, a descriptor limit): the
 * message is retried, and the next push loads it again and is delivered. Before, the sender loaded it with `import()`,
 * whose failure Node keeps for the life of the process, and the channel dropped a failure that was no retry error:
 * every later push in that process (a shared test worker: the Web Push files "got no push") went nowhere, without a
 * trace. Real parts: the sender posts to the fake push service, which decrypts and checks each message.
 */
import { createRequire } from 'node:module';
import type * as WebPushLibrary from 'web-push';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PushRetryError, PushSender } from '../../../src/push/sender.js';
import type { PushSubscriptionRecord, PushSubscriptionStore } from '../../../src/push/subscriptions.js';
import { vapidKeysFrom } from '../../../src/push/vapid.js';
import { FakePushService } from '../../fakes/push/fake-push-service.js';

const keys = vapidKeysFrom('sender-load-test-secret');
const store: PushSubscriptionStore = {
  save: async (record) => record,
  ofPerson: async () => [],
  get: async () => null,
  remove: async () => false,
};

describe('push sender: web-push failing to load once', () => {
  let push: FakePushService;
  beforeEach(async () => {
    push = await new FakePushService().start();
    push.expectedKey = keys.publicKey;
  });
  afterEach(() => push.stop());

  it('throws a retry error for that message, and loads it again for the next one, which is delivered', async () => {
    const realRequire = createRequire(import.meta.url);
    let loads = 0;
    const sender = new PushSender({
      keys,
      subject: 'mailto:ops@example.com',
      subscriptions: store,
      outboundAllow: ['127.0.0.1'],
      loadLibrary: () => {
        if (++loads === 1) throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
        return realRequire('web-push') as typeof WebPushLibrary;
      },
    });
    const device = push.device();
    const record: PushSubscriptionRecord = {
      id: 'sub-1',
      person: 'alice',
      account: 'web:alice',
      endpoint: device.subscription.endpoint,
      p256dh: device.subscription.keys.p256dh,
      auth: device.subscription.keys.auth,
      createdAt: new Date(),
    };
    const options = { ttlS: 60, urgency: 'high' as const };
    await expect(sender.send(record, { n: 1 }, options)).rejects.toBeInstanceOf(PushRetryError);
    expect(await sender.send(record, { n: 2 }, options)).toBe('sent');
    expect(loads).toBe(2);
    expect(push.problems).toEqual([]);
    expect(push.messagesOf(device).map((m) => m.payload)).toEqual([{ n: 2 }]);
  });
});
