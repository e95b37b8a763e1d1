/**
 * The hot calls (file, long-poll, decide, the Claude Code hook) are answered by the lean routes on node's own request,
 * and the same calls in a shape they leave to express (a trailing slash) by the express app: both must answer alike,
 * errors included.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
let expressCalls: number;
beforeEach(async () => {
  // A day's window: the budget's windows are fixed (whole minutes by default), and one that turned over between the
  // decisions and the call past the budget gave it a fresh budget (409 instead of 429; seen once in a full run).
  t = await startTestServer({ env: { TOLLGATE_RATE_LIMIT_DECISIONS: '4', TOLLGATE_RATE_LIMIT_WINDOW_S: '86400' } });
  // The server hands express whatever the lean routes leave: count what reaches it.
  expressCalls = 0;
  const app = t.server.app as unknown as { handle: (...args: unknown[]) => unknown };
  const handle = app.handle.bind(app);
  app.handle = (...args: unknown[]) => {
    expressCalls++;
    return handle(...args);
  };
});
afterEach(async () => {
  await t.close();
});

/** Status, content type and body (ids, times and verdict tokens masked: a token names its request) of a call, plus whether express answered it. */
async function call(
  path: string,
  init: { method?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
) {
  const before = expressCalls;
  const res =
    init.raw !== undefined
      ? await fetch(`${t.url}${path}`, {
          method: 'POST',
          body: init.raw,
          headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json', ...init.headers },
        })
      : await t.api(path, init);
  const text = await res.text();
  const body = text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/"\d{4}-\d\d-\d\dT[^"]+"/g, '"<time>"')
    .replace(/"verdict_token":"[\w.-]+"/g, '"verdict_token":"<token>"');
  const hook = {
    requestId: res.headers.get('tollgate-request-id')?.replace(/[0-9a-f-]{36}/, '<id>'),
    requestStatus: res.headers.get('tollgate-request-status'),
  };
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    location: res.headers.get('location')?.replace(/[0-9a-f-]{36}/, '<id>'),
    retryAfter: res.headers.get('retry-after'),
    ...hook,
    body,
    viaExpress: expressCalls > before,
  };
}

const lean = (path: string) => path;
const viaExpress = (path: string) => `${path}/`;
const same = async (make: (shape: (p: string) => string) => Promise<Awaited<ReturnType<typeof call>>>) => {
  const a = await make(lean);
  const b = await make(viaExpress);
  expect(a.viaExpress).toBe(false);
  expect(b.viaExpress).toBe(true);
  expect({ ...a, viaExpress: undefined }).toEqual({ ...b, viaExpress: undefined });
  return a;
};

describe('lean routes', () => {
  it('file a request like express does: 201 with its location, 400 naming the field, 400/413 for bad bodies', async () => {
    const created = await same((p) =>
      call(p('/v1/requests'), { body: { tool_name: 'deploy', tool_args: { env: 'prod' } } }),
    );
    expect(created).toMatchObject({
      status: 201,
      type: 'application/json; charset=utf-8',
      location: '/v1/requests/<id>',
    });
    const invalid = await same((p) => call(p('/v1/requests'), { body: { tool_args: { env: 'prod' } } }));
    expect(invalid.status).toBe(400);
    expect(invalid.type).toBe('application/problem+json; charset=utf-8');
    expect(JSON.parse(invalid.body)).toMatchObject({ errors: [expect.objectContaining({ path: 'tool_name' })] });
    const malformed = await same((p) => call(p('/v1/requests'), { raw: '{"tool_name": ' }));
    expect(JSON.parse(malformed.body)).toMatchObject({ status: 400, detail: 'body is not valid JSON' });
    const huge = await same((p) =>
      call(p('/v1/requests'), { raw: JSON.stringify({ tool_name: 'x', tool_args: { blob: 'a'.repeat(300_000) } }) }),
    );
    expect(huge.status).toBe(413);
  });

  it('refuse a missing token, an unknown one and a token without the scope alike', async () => {
    const none = await same((p) =>
      call(p('/v1/requests'), { body: { tool_name: 'x' }, headers: { authorization: '' } }),
    );
    expect(none.status).toBe(401);
    const unknown = await same((p) =>
      call(p('/v1/requests'), { body: { tool_name: 'x' }, headers: { authorization: 'Bearer nope' } }),
    );
    expect(JSON.parse(unknown.body)).toMatchObject({
      status: 401,
      detail: expect.stringMatching(/invalid bearer token/),
    });
    const reader = (await (
      await t.api('/v1/tokens', { body: { name: 'reader', scopes: ['request:read'] } })
    ).json()) as { secret: string };
    const scoped = await same((p) =>
      call(p('/v1/requests'), { body: { tool_name: 'x' }, headers: { authorization: `Bearer ${reader.secret}` } }),
    );
    expect(JSON.parse(scoped.body)).toMatchObject({
      status: 403,
      type: 'https://tollgate.dev/problems/tollgate_insufficient_scope',
    });
  });

  it('read and long-poll like express does, 404 for an unknown id and 400 for a bad wait', async () => {
    const { id } = (await (await t.api('/v1/requests', { body: { tool_name: 'deploy' } })).json()) as { id: string };
    const read = await same((p) => call(p(`/v1/requests/${id}`)));
    expect(JSON.parse(read.body)).toMatchObject({ id: '<id>', status: 'pending' });
    const waited = await same((p) => call(`${p(`/v1/requests/${id}`)}?wait=0.05`));
    expect(JSON.parse(waited.body)).toMatchObject({ status: 'pending' });
    expect((await same((p) => call(p('/v1/requests/00000000-0000-4000-8000-000000000000')))).status).toBe(404);
    const badWait = await same((p) => call(`${p(`/v1/requests/${id}`)}?wait=soon`));
    expect(JSON.parse(badWait.body)).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ path: expect.stringMatching(/wait/) })],
    });
  });

  it('decide like express does: the verdict, then 409 for a second one, then 429 past the decision budget', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++)
      ids.push(((await (await t.api('/v1/requests', { body: { tool_name: 'deploy' } })).json()) as { id: string }).id);
    let i = 0;
    const decided = await same((p) =>
      call(p(`/v1/requests/${ids[i++]}/decision`), { body: { decision: 'approve', approver: 'web:alice' } }),
    );
    expect(JSON.parse(decided.body)).toMatchObject({
      status: 'approved',
      responded_by: 'web:alice',
      responded_via: 'api',
    });
    i = 0;
    const again = await same((p) =>
      call(p(`/v1/requests/${ids[i++]}/decision`), { body: { decision: 'deny', approver: 'web:bob' } }),
    );
    expect(JSON.parse(again.body)).toMatchObject({
      status: 409,
      type: 'https://tollgate.dev/problems/tollgate_already_decided',
    });
    // The budget of 4 decisions per window is now spent: the next call is refused before it is read.
    const refused = await same((p) =>
      call(p(`/v1/requests/${ids[0]}/decision`), { body: { decision: 'deny', approver: 'web:bob' } }),
    );
    expect(refused).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^\d+$/) });
  });

  it('answer the Claude Code hook like express does: the answer and its headers, receipts, errors naming the field, scopes', async () => {
    const ask = {
      hook_event_name: 'PreToolUse',
      session_id: 's1',
      tool_use_id: 'toolu_lean',
      tool_name: 'Bash',
      tool_input: { command: 'make deploy' },
    };
    const pending = await same((p) => call(`${p('/v1/hooks/claude-code')}?wait=0`, { body: ask }));
    expect(pending).toMatchObject({
      status: 200,
      type: 'application/json; charset=utf-8',
      requestId: '<id>',
      requestStatus: 'pending',
    });
    expect(JSON.parse(pending.body)).toMatchObject({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' },
    });
    // One request for both calls (the same tool_use_id), and the lean call recorded it as the token's.
    const listed = (await (await t.api('/v1/requests?tool_name=Bash')).json()) as { items: { filed_by: string }[] };
    expect(listed.items).toEqual([expect.objectContaining({ filed_by: 'admin' })]);
    const receipt = await same((p) =>
      call(p('/v1/hooks/claude-code'), { body: { ...ask, hook_event_name: 'PostToolUse' } }),
    );
    expect(receipt).toMatchObject({ status: 200, body: '{}' });
    const invalid = await same((p) =>
      call(`${p('/v1/hooks/claude-code')}?wait=0`, { body: { ...ask, tool_name: undefined } }),
    );
    expect(invalid).toMatchObject({ status: 400, type: 'application/problem+json; charset=utf-8' });
    expect(JSON.parse(invalid.body)).toMatchObject({ errors: [expect.objectContaining({ path: 'tool_name' })] });
    const badQuery = await same((p) => call(`${p('/v1/hooks/claude-code')}?wait=0&colour=red`, { body: ask }));
    expect(JSON.parse(badQuery.body)).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ path: 'query', message: expect.stringMatching(/colour/) })],
    });
    // The scope is checked before the body is read, as express's hook middleware does: a bad body is still a 403.
    const reader = (await (
      await t.api('/v1/tokens', { body: { name: 'reader', scopes: ['request:read'] } })
    ).json()) as { secret: string };
    const scoped = await same((p) =>
      call(p('/v1/hooks/claude-code'), {
        raw: '{"tool_name": ',
        headers: { authorization: `Bearer ${reader.secret}` },
      }),
    );
    expect(JSON.parse(scoped.body)).toMatchObject({
      status: 403,
      type: 'https://tollgate.dev/problems/tollgate_insufficient_scope',
    });
  });

  it('answer a long-poll the moment the request is decided, and leave HEAD to express', async () => {
    const { id } = (await (await t.api('/v1/requests', { body: { tool_name: 'deploy' } })).json()) as { id: string };
    const waiting = call(`/v1/requests/${id}?wait=30`);
    await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'deny', approver: 'web:bob', reason: 'no' } });
    const resumed = await waiting;
    expect(resumed.viaExpress).toBe(false);
    expect(JSON.parse(resumed.body)).toMatchObject({ status: 'denied', reason: 'no' });
    const head = await call(`/v1/requests/${id}`, { method: 'HEAD' });
    expect(head).toMatchObject({ status: 200, viaExpress: true, body: '' });
  });
});
