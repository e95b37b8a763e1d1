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

describe('tollgate token create --as person:ID', () => {
  const create = (server: TestServer, as: string) =>
    run(['create', `${as.replace(':', '-')}-cli`, '--scope', 'request:decide', '--as', as], {
      stdout: { write: () => true },
      env: { TOLLGATE_URL: server.url, TOLLGATE_TOKEN: server.token },
    });

  it('without a people directory, is refused saying why and what to run instead (it would decide nothing)', async () => {
    await expect(create(t, 'person:alice')).rejects.toThrow(
      /as: person:alice names no one: this gateway has no people directory .* bind the token to an account instead \(as: web:alice, `--as web:alice`\), or list alice under `people:`/,
    );
    expect(((await (await t.api('/v1/tokens')).json()) as { items: unknown[] }).items).toEqual([]);
  });

  it('with a directory, binds a person it knows (who then sees the requests of her accounts) and refuses one it does not', async () => {
    const people = await startTestServer({ policy: 'people:\n  - { id: alice, accounts: { web: alice } }\n' });
    try {
      await expect(create(people, 'person:zed')).rejects.toThrow(/person:zed names no one: .*no person "zed"/);
      let secret = '';
      expect(
        await run(['create', 'alice-cli', '--scope', 'request:decide', '--as', 'person:alice'], {
          stdout: { write: (s: string) => (secret += s) },
          env: { TOLLGATE_URL: people.url, TOLLGATE_TOKEN: people.token },
        }),
      ).toBe(0);
      const filed = await people.api('/v1/requests', { body: { tool_name: 'deploy', approvers: ['web:alice'] } });
      const { id } = (await filed.json()) as { id: string };
      const inbox = await fetch(`${people.url}/v1/inbox`, { headers: { authorization: `Bearer ${secret.trim()}` } });
      expect(((await inbox.json()) as { items: { id: string }[] }).items.map((r) => r.id)).toEqual([id]);
    } finally {
      await people.close();
    }
  });
});
