/**
 * "File or re-attach" across replicas: the same Claude Code call (same session, tool and input) asked under 12
 * different tool_use_ids on two `tollgate serve` processes sharing one PostgreSQL database at once files one request.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { replicaPair } from './replica-pair.js';
import type { ChildGateway } from '../../helpers/child-gateway.js';

const pair = replicaPair();

describe('re-attach across replicas', () => {
  it('files one request when 12 asks of the same call race over two replicas', async () => {
    const session = `sess-${randomUUID()}`;
    const ask = (gateway: ChildGateway, i: number) =>
      gateway.api('/v1/hooks/claude-code?wait=0', {
        body: {
          session_id: session,
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_input: { command: 'rm -rf build' },
          tool_use_id: `tu_${i}`,
        },
      });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => ask(i % 2 ? pair.b : pair.a, i)));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    const listed = (await (await pair.a.api('/v1/requests?tool_name=Bash&limit=100')).json()) as {
      items: { session_id: string }[];
    };
    expect(listed.items.filter((r) => r.session_id === session)).toHaveLength(1);
  });
});
