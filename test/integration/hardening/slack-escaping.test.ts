// Text that reaches Slack is mrkdwn, including a message's top-level `text` (what notifications show): a tool name,
// an approver or a reason like `<!channel>` or `<https://evil|click>` must arrive escaped, never as a ping or a link.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { startSlackGateway, type SlackGateway } from '../slack/setup.js';

let env: SlackGateway;
beforeEach(async () => {
  env = await startSlackGateway();
});
afterEach(async () => {
  await env.close();
});

const hostile = /<!channel>|<https:\/\/evil/;

describe('slack escaping', () => {
  it('escapes the top-level text of the post and of every update', async () => {
    const request = await env.file({ tool_name: '<!channel>', prompt: 'x', approvers: ['slack:U1', 'web:alice'] });
    const post = env.slack.fake.callsTo('chat.postMessage').at(-1)!;
    expect(String(post.params.text)).not.toMatch(hostile);
    expect(String(post.params.text)).toContain('&lt;!channel&gt;');

    await env.server.api(`/v1/requests/${request.id}/decision`, {
      body: { decision: 'deny', approver: 'web:alice', reason: '<https://evil|click> here' },
    });
    const update = await eventually(() => {
      const call = env.slack.fake.callsTo('chat.update').at(-1);
      expect(call).toBeDefined();
      return call!;
    });
    expect(String(update.params.text)).not.toMatch(hostile);
    expect(String(update.params.text)).toContain('&lt;https://evil|click&gt;');
  });
});
