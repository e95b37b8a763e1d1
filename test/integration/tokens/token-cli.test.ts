import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/token.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

async function cli(...argv: string[]): Promise<string> {
  let out = '';
  const code = await run(argv, {
    stdout: { write: (s: string) => (out += s) },
    env: { TOLLGATE_URL: t.url, TOLLGATE_TOKEN: t.token },
  });
  expect(code).toBe(0);
  return out;
}

describe('tollgate token', () => {
  it('creates a bound decide token that works, lists it, and revokes it', async () => {
    const secret = await cli('create', 'alice-bridge', '--scope', 'request:decide', '--as', 'web:alice').then((o) =>
      o.trim(),
    );
    expect(secret).toMatch(/^tg_/);
    const listed = JSON.parse(await cli('list', '--json')) as { id: string; name: string; as: string }[];
    const mine = listed.find((l) => l.name === 'alice-bridge')!;
    expect(mine.as).toBe('web:alice');

    const file = async () =>
      (
        (await (await t.api('/v1/requests', { body: { tool_name: 'deploy', approvers: ['web:alice'] } })).json()) as {
          id: string;
        }
      ).id;
    const decide = (id: string) =>
      fetch(`${t.url}/v1/requests/${id}/decision`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'deny', reason: 'not today' }),
      });
    const first = await file();
    expect(await (await decide(first)).json()).toMatchObject({
      status: 'denied',
      responded_by: 'web:alice',
      responded_via: 'api',
    });

    await cli('revoke', mine.id);
    const second = await file();
    expect((await decide(second)).status).toBe(401);
    expect(((await (await t.api(`/v1/requests/${second}`)).json()) as { status: string }).status).toBe('pending');
  });
});
