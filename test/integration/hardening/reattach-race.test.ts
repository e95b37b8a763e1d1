// Fifty Claude Code hook calls at once for the same session, tool and input (different tool_use_ids: Claude Code
// retried the call) must re-attach to one request — one card for the approver, not dozens.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

describe('concurrent re-asks', () => {
  it('give one request', async () => {
    const ask = (i: number) =>
      t.api('/v1/hooks/claude-code?wait=0', {
        body: {
          session_id: 'sess-1',
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_input: { command: 'git push --force' },
          tool_use_id: `toolu_${i}`,
          cwd: '/repo',
          transcript_path: '/t',
          permission_mode: 'default',
        },
      });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => ask(i)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const page = (await (await t.api('/v1/requests?tool_name=Bash&limit=100')).json()) as { items: unknown[] };
    expect(page.items).toHaveLength(1);
  });
});
