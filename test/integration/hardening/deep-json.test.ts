// Hostile input: JSON nested thousands of levels deep, well under the body limit, used to overflow the stack (500
// "Maximum call stack size exceeded") wherever a value is hashed, serialized or rendered. Now a 400 naming the field.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseEditedArgs } from '../../../channels/web/decision-form.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../../../src/utils/json-bounds.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** `{"a":{"a":…}}` nested `depth` levels, as raw JSON text (building it as an object would itself recurse to print). */
function nestedText(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

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

describe('deeply nested JSON', () => {
  const deep = nestedText(8000);

  it.each([
    ['tool_args', `{"tool_name":"x","tool_args":${deep}}`],
    ['metadata', `{"tool_name":"x","metadata":${deep}}`],
  ])('POST /v1/requests with a deep %s → 400 naming it, and no row', async (field, body) => {
    const res = await post('/v1/requests', body);
    expect(res.status).toBe(400);
    expect(res.body).toContain(field);
    expect(res.body).toContain(`deeper than ${MAX_JSON_DEPTH}`);
    const list = (await (await t.api('/v1/requests')).json()) as { items: unknown[] };
    expect(list.items).toHaveLength(0);
  });

  it('a decision with deep approved_args → 400, and the request stays pending', async () => {
    const { id } = (await (await t.api('/v1/requests', { body: { tool_name: 'x' } })).json()) as { id: string };
    const res = await post(
      `/v1/requests/${id}/decision`,
      `{"decision":"approve","approver":"web:alice","approved_args":${deep}}`,
    );
    expect(res.status).toBe(400);
    expect(res.body).toContain('approved_args');
    expect(((await (await t.api(`/v1/requests/${id}`)).json()) as { status: string }).status).toBe('pending');
  });

  it.each([
    [
      '/v1/hooks/claude-code',
      `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":${deep}}`,
      'tool_input',
    ],
    ['/v1/hooks/pulsebot', `{"event":"pre_call","tool_name":"shell","arguments":${deep}}`, 'arguments'],
  ])('%s with a deep body → 400 naming the field', async (path, body, field) => {
    const res = await post(`${path}?wait=0`, body);
    expect(res.status).toBe(400);
    expect(res.body).toContain(field);
    expect(res.body).toContain(`deeper than ${MAX_JSON_DEPTH}`);
  });

  it('accepts nesting at the bound', async () => {
    const res = await post('/v1/requests', `{"tool_name":"x","tool_args":${nestedText(MAX_JSON_DEPTH)}}`);
    expect(res.status).toBe(201);
  });

  it('the web editor refuses deep edited arguments with a sentence, not a crash', () => {
    const parsed = parseEditedArgs(deep, {});
    expect(parsed).toEqual({ ok: false, error: `The arguments are nested deeper than ${MAX_JSON_DEPTH} levels.` });
  });

  it('measures depth without recursion', () => {
    expect(jsonDepth(JSON.parse(nestedText(100_000)), Number.POSITIVE_INFINITY)).toBe(100_000);
  });
});
