// Hostile input: `__proto__`, `constructor` and `prototype` keys in a JSON body. JSON.parse keeps `__proto__` as an own
// key, but the first copy of the value (zod's record, a spread) turns it into a prototype and drops it: approvers never
// saw it, the stored arguments lacked it, and an integration running its own copy of the agent's arguments passed it
// on. Such keys are now a 400 naming the path, and nothing is filed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseEditedArgs } from '../../../channels/web/decision-form.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

async function post(path: string, rawBody: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
    body: rawBody,
  });
  return { status: res.status, body: await res.text() };
}

async function filed(): Promise<number> {
  return ((await (await t.api('/v1/requests')).json()) as { items: unknown[] }).items.length;
}

describe('prototype keys in request JSON', () => {
  it.each([
    ['{"tool_name":"x","tool_args":{"a":{"__proto__":{"x":1}}}}', 'tool_args.a.__proto__'],
    ['{"tool_name":"x","tool_args":{"__proto__":{"isAdmin":true}}}', 'tool_args.__proto__'],
    [
      '{"tool_name":"x","tool_args":{"list":[1,{"constructor":{"prototype":{"x":1}}}]}}',
      'tool_args.list[1].constructor',
    ],
    ['{"tool_name":"x","tool_args":{"a":{"prototype":1}}}', 'tool_args.a.prototype'],
    ['{"tool_name":"x","metadata":{"__proto__":{"x":1}}}', 'metadata.__proto__'],
    // The same key spelt with escapes is the same key once parsed.
    ['{"tool_name":"x","tool_args":{"a":{"\\u005f_proto__":{"x":1}}}}', 'tool_args.a.__proto__'],
  ])('POST /v1/requests %s → 400 naming %s, nothing filed', async (body, path) => {
    const res = await post('/v1/requests', body);
    expect(res.status).toBe(400);
    const problem = JSON.parse(res.body) as { detail: string; errors: { path: string; message: string }[] };
    expect(problem.errors[0]?.path).toBe(path);
    expect(problem.detail).toContain(path);
    expect(await filed()).toBe(0);
  });

  it('a decision with a __proto__ key in approved_args → 400 naming it, and the request stays pending', async () => {
    const { id } = (await (await t.api('/v1/requests', { body: { tool_name: 'x', tool_args: { a: 1 } } })).json()) as {
      id: string;
    };
    const res = await post(
      `/v1/requests/${id}/decision`,
      '{"decision":"approve","approver":"web:alice","approved_args":{"a":1,"__proto__":{"a":2}}}',
    );
    expect(res.status).toBe(400);
    expect(res.body).toContain('approved_args.__proto__');
    expect(((await (await t.api(`/v1/requests/${id}`)).json()) as { status: string }).status).toBe('pending');
  });

  it.each([
    [
      '/v1/hooks/claude-code',
      '{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls","__proto__":{"command":"rm -rf /"}}}',
      'tool_input.__proto__',
    ],
    [
      '/v1/hooks/pulsebot',
      '{"event":"pre_call","tool_name":"shell","arguments":{"cmd":{"constructor":1}}}',
      'arguments.cmd.constructor',
    ],
  ])('%s with a prototype key → 400 naming %s, nothing filed', async (path, body, field) => {
    const res = await post(`${path}?wait=0`, body);
    expect(res.status).toBe(400);
    expect(res.body).toContain(field);
    expect(await filed()).toBe(0);
  });

  it('keys that merely contain the words are fine', async () => {
    const res = await post(
      '/v1/requests',
      '{"tool_name":"x","tool_args":{"constructor_name":"a","my_prototype":1,"proto":{"__proto":2}}}',
    );
    expect(res.status).toBe(201);
    const { id } = JSON.parse(res.body) as { id: string };
    const stored = (await (await t.api(`/v1/requests/${id}`)).json()) as { tool_args: unknown };
    expect(stored.tool_args).toEqual({ constructor_name: 'a', my_prototype: 1, proto: { __proto: 2 } });
  });

  it('the web editor refuses a __proto__ key in edited arguments with a sentence naming it', () => {
    const parsed = parseEditedArgs('{"a":1,"b":{"__proto__":{"a":2}}}', { a: 1 });
    expect(parsed).toEqual({ ok: false, error: 'The arguments may not use the key "__proto__" (at b.__proto__).' });
  });
});
