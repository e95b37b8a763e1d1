/** A policy reminder on Slack is a reply in the card's thread, naming who may decide. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { eventually } from '../../helpers/eventually.js';
import { startSlackGateway, type SlackGateway } from '../slack/setup.js';

const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["slack:UALICE"]
    timeout_s: 3600
    remind_after_s: 600
`;

let clock: ManualClock;
let env: SlackGateway;

beforeEach(async () => {
  clock = new ManualClock(Date.now());
  env = await startSlackGateway({
    waitForCards: false,
    server: { clock, scheduler: new InProcessScheduler({ clock }), policy: POLICY },
  });
});
afterEach(async () => {
  await env.close();
});

describe('slack reminders', () => {
  it('replies in the card’s thread once remind_after_s has passed', async () => {
    const request = await env.file({ tool_name: 'deploy' });
    await clock.advance(0);
    const card = await eventually(() => env.slack.messageFor(request));
    await eventually(async () =>
      expect((await env.server.store.messages(request.id)).find((m) => m.channel === 'slack')?.status).toBe('sent'),
    );
    await clock.advance(600_000);
    const reply = await eventually(() => {
      const found = env.slack.fake.callsTo('chat.postMessage').find((c) => c.params.thread_ts === card.ts);
      if (!found) throw new Error('no thread reply yet');
      return found;
    });
    expect(reply.params).toMatchObject({
      channel: card.channel,
      text: expect.stringMatching(
        /^Reminder: Approval needed: deploy is still waiting\. Who may decide: slack:UALICE\./,
      ),
    });
    expect(await env.eventTypes(request.id)).toContain('reminded');
  });
});
