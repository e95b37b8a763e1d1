/** Reminders and escalation on BullMQ (real Redis, real delayed jobs): each step runs once, then the request expires. */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CardRef, Channel } from '../../../src/channel/channel.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { deleteKeys, REDIS_URL } from '../bullmq/redis.js';

const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["web:alice"]
    channels: [{ type: pager, target: C-TEAM }]
    timeout_s: 4
    remind_after_s: 1
    escalate:
      - { after_s: 2, approvers: ["web:ceo"], channels: [{ type: pager, target: C-EXEC }] }
`;

class RecordingChannel implements Channel {
  readonly name = 'pager';
  readonly sent: string[] = [];
  readonly reminded: CardRef[] = [];
  async send(_request: ConfirmationRequest, target: string) {
    this.sent.push(target);
    return `msg-${target}`;
  }
  async update() {}
  async remind(_request: ConfirmationRequest, card: CardRef) {
    this.reminded.push(card);
  }
}

let prefix: string;
let pager: RecordingChannel;
let t: TestServer;

beforeEach(async () => {
  prefix = `test-${randomUUID()}`;
  pager = new RecordingChannel();
  t = await startTestServer({ channels: [pager], policy: POLICY, env: { REDIS_URL, TOLLGATE_QUEUE_PREFIX: prefix } });
});
afterEach(async () => {
  await t.close();
  await deleteKeys(prefix);
});

describe('reminders and escalation on BullMQ', () => {
  it('reminds at 1 s, escalates at 2 s, expires at 4 s, each once', async () => {
    expect(t.gateway.describe().scheduler).toBe('bullmq');
    const { request } = await t.gateway.request({ toolName: 'deploy', toolArgs: {} });
    const types = async () =>
      (await t.store.events(request.id))
        .map((e) => e.type)
        .filter((x) => x === 'reminded' || x === 'escalated' || x === 'expired');
    await eventually(async () => expect(await types()).toEqual(['reminded']), 3000);
    expect(pager.reminded).toEqual([{ target: 'C-TEAM', messageRef: 'msg-C-TEAM' }]);
    await eventually(async () => expect(await types()).toEqual(['reminded', 'escalated']), 3000);
    await eventually(() => expect(pager.sent).toEqual(['C-TEAM', 'C-EXEC']), 3000);
    expect((await t.gateway.get(request.id))!.approvers).toEqual(['web:alice', 'web:ceo']);
    await eventually(async () => expect(await types()).toEqual(['reminded', 'escalated', 'expired']), 5000);
    expect(pager.reminded).toHaveLength(1);
  });
});
