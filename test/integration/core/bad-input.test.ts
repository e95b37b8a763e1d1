import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
let pendingId: string;
beforeAll(async () => {
  t = await startTestServer();
  pendingId = ((await (await t.api('/v1/requests', { body: { tool_name: 'x' } })).json()) as { id: string }).id;
});
afterAll(async () => {
  await t.close();
});

/** Every answer to bad input is a 4xx problem+json that names what is wrong. */
async function expectProblem(res: Response, status: number, mentions: RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as {
    status: number;
    title: string;
    detail: string;
    type: string;
    errors?: { path: string }[];
  };
  expect(body.status).toBe(status);
  expect(body.title).toBeTruthy();
  expect(`${body.detail} ${JSON.stringify(body.errors ?? [])}`).toMatch(mentions);
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/); // no stack traces
  return body;
}

describe('bad input gets a clear 4xx and changes nothing', () => {
  const create = (body: unknown, headers?: Record<string, string>) =>
    t.api('/v1/requests', { method: 'POST', body, headers });

  it.each([
    ['missing tool_name', {}, /tool_name.*required/],
    ['empty tool_name', { tool_name: '' }, /tool_name/],
    ['tool_name of the wrong type', { tool_name: 42 }, /tool_name/],
    ['tool_args as an array', { tool_name: 'x', tool_args: [1, 2] }, /tool_args/],
    ['an unknown field', { tool_name: 'x', tool_nmae: 'y' }, /unknown field.*tool_nmae/],
    ['one option only', { tool_name: 'x', options: ['OK'] }, /options/],
    ['a channel without type', { tool_name: 'x', channels: [{ target: 'C1' }] }, /channels\[0\]\.type/],
    [
      'a channel that is not enabled',
      { tool_name: 'x', channels: [{ type: 'slack', target: 'C1' }] },
      /channels\[0\]\.type.*not enabled/,
    ],
    ['an approver without a channel prefix', { tool_name: 'x', approvers: ['alice'] }, /approvers\[0\]/],
    ['zero required approvals', { tool_name: 'x', required_approvals: 0 }, /required_approvals/],
    ['a fractional timeout', { tool_name: 'x', timeout_s: 1.5 }, /timeout_s/],
    ['a negative timeout', { tool_name: 'x', timeout_s: -1 }, /timeout_s/],
    ['an unknown on_timeout', { tool_name: 'x', on_timeout: 'maybe' }, /on_timeout/],
    ['a callback_url that is not http', { tool_name: 'x', callback_url: 'file:///etc/passwd' }, /callback_url/],
    ['a JSON array body', [1, 2], /body|expected object/],
    ['a JSON string body', '"hello"', /body|JSON|expected object/],
  ])('POST /v1/requests with %s → 400', async (_name, body, mentions) => {
    await expectProblem(await create(body), 400, mentions);
  });

  it('malformed JSON → 400', async () => {
    await expectProblem(await create('{"tool_name": "x",'), 400, /not valid JSON/);
  });

  it('a body over the size limit → 413', async () => {
    await expectProblem(
      await create({ tool_name: 'x', tool_args: { blob: 'x'.repeat(300_000) } }),
      413,
      /larger than the limit/,
    );
  });

  it('a body that is not JSON → 415', async () => {
    await expectProblem(
      await create('tool_name=x', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      /application\/json/,
    );
  });

  it('no token, a wrong token, or another scheme → 401', async () => {
    await expectProblem(await fetch(`${t.url}/v1/requests`), 401, /Bearer/);
    await expectProblem(
      await fetch(`${t.url}/v1/requests`, { headers: { authorization: 'Bearer wrong' } }),
      401,
      /invalid bearer token/,
    );
    await expectProblem(
      await fetch(`${t.url}/v1/requests`, { headers: { authorization: `Basic ${t.token}` } }),
      401,
      /token/,
    );
  });

  it('unknown or malformed ids → 404', async () => {
    await expectProblem(await t.api('/v1/requests/0190d6e4-0000-7000-8000-000000000000'), 404, /no request/);
    await expectProblem(await t.api('/v1/requests/not-an-id'), 404, /no request/);
    await expectProblem(
      await t.api('/v1/requests/0190d6e4-0000-7000-8000-000000000000/decision', {
        body: { decision: 'approve', approver: 'web:a' },
      }),
      404,
      /no request/,
    );
    await expectProblem(
      await t.api('/v1/requests/0190d6e4-0000-7000-8000-000000000000/cancel', { method: 'POST' }),
      404,
      /no request/,
    );
  });

  it('bad decisions → 400 naming the field', async () => {
    // A request of its own: another test of the file decides the shared one, and the tests run in any order.
    const pendingId = ((await (await t.api('/v1/requests', { body: { tool_name: 'x' } })).json()) as { id: string }).id;
    await expectProblem(
      await t.api(`/v1/requests/${pendingId}/decision`, { body: { decision: 'maybe', approver: 'web:a' } }),
      400,
      /decision/,
    );
    await expectProblem(
      await t.api(`/v1/requests/${pendingId}/decision`, { body: { decision: 'approve' } }),
      400,
      /approver.*required/,
    );
    await expectProblem(
      await t.api(`/v1/requests/${pendingId}/decision`, {
        body: { decision: 'deny', approver: 'web:a', approved_args: { x: 1 } },
      }),
      400,
      /approval only/,
    );
    expect(((await (await t.api(`/v1/requests/${pendingId}`)).json()) as { status: string }).status).toBe('pending');
  });

  it('bad query parameters → 400 naming the parameter', async () => {
    await expectProblem(await t.api(`/v1/requests/${pendingId}?wait=soon`), 400, /wait/);
    await expectProblem(await t.api(`/v1/requests/${pendingId}?wait=-3`), 400, /wait/);
    await expectProblem(await t.api('/v1/requests?limit=0'), 400, /limit/);
    await expectProblem(await t.api('/v1/requests?status=done'), 400, /status/);
    await expectProblem(await t.api('/v1/requests?since=yesterday'), 400, /since/);
    await expectProblem(await t.api('/v1/requests?cursor=bm9wZQ'), 400, /cursor/);
    await expectProblem(await t.api('/v1/requests?colour=red'), 400, /unknown field.*colour/);
    await expectProblem(await t.api('/v1/requests/export?format=xlsx'), 400, /format/);
  });

  it('unknown routes and methods → 404 problem', async () => {
    await expectProblem(await t.api('/v1/nothing-here'), 404, /no route/);
    await expectProblem(await fetch(`${t.url}/nothing`), 404, /no route/);
    await expectProblem(await t.api('/v1/requests', { method: 'DELETE' }), 404, /no route/);
  });

  it('caps long-poll waits at 55 s instead of refusing them', async () => {
    // wait=9999 is accepted (capped); deciding right away proves the request is served, not rejected.
    const waiting = t.api(`/v1/requests/${pendingId}?wait=9999`);
    await t.api(`/v1/requests/${pendingId}/decision`, { body: { decision: 'deny', approver: 'web:a' } });
    expect((await waiting).status).toBe(200);
  });
});
