import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

async function create(body: Record<string, unknown> = { tool_name: 'pay_invoice', tool_args: { amount: 120 } }) {
  const res = await t.api('/v1/requests', { body });
  return { res, json: (await res.json()) as Record<string, unknown> & { id: string; status: string } };
}

describe('HTTP API: the request lifecycle', () => {
  it('creates, reads, long-polls and decides', async () => {
    const { res, json } = await create({
      tool_name: 'pay_invoice',
      tool_args: { amount: 120 },
      prompt: 'Pay?',
      agent_id: 'bot',
      approvers: ['web:alice'],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/v1/requests/${json.id}`);
    expect(json).toMatchObject({
      status: 'pending',
      tool_name: 'pay_invoice',
      options: ['Approve', 'Deny'],
      allowed: null,
      required_approvals: 1,
      on_timeout: 'deny',
    });
    expect(json).not.toHaveProperty('nonce');
    expect(typeof json.expires_at).toBe('string');

    const waiting = t.api(`/v1/requests/${json.id}?wait=30`);
    const decided = await t.api(`/v1/requests/${json.id}/decision`, {
      body: { decision: 'approve', approver: 'web:alice', reason: 'looks right' },
    });
    expect(decided.status).toBe(200);
    const resumed = (await (await waiting).json()) as Record<string, unknown>;
    expect(resumed).toMatchObject({
      status: 'approved',
      allowed: true,
      responded_by: 'web:alice',
      responded_via: 'api',
      reason: 'looks right',
      decision_option: 'Approve',
    });

    const timeline = (await (
      await t.api(`/v1/requests/${json.id}/events`, { headers: { accept: 'application/json' } })
    ).json()) as { items: { type: string }[] };
    expect(timeline.items.map((e) => e.type)).toEqual(['created', 'delivered', 'approved']);
  });

  it('reads the row once for a long-poll: the read that registers the wait is the one checked and answered', async () => {
    const { json } = await create();
    await t.api(`/v1/requests/${json.id}/decision`, { body: { decision: 'deny', approver: 'web:alice' } });
    const reads = vi.spyOn(t.store, 'get');
    const res = await t.api(`/v1/requests/${json.id}?wait=30`);
    expect(((await res.json()) as { status: string }).status).toBe('denied');
    expect(reads.mock.calls.filter(([id]) => id === json.id)).toHaveLength(1);
    reads.mockRestore();
  });

  it('answers pending when the wait ends without a decision', async () => {
    const { json } = await create();
    const res = await t.api(`/v1/requests/${json.id}?wait=0.2`);
    expect(((await res.json()) as { status: string }).status).toBe('pending');
  });

  it('streams the request over SSE until it is final', async () => {
    const { json } = await create();
    const res = await fetch(`${t.url}/v1/requests/${json.id}/events`, {
      headers: { authorization: `Bearer ${t.token}`, accept: 'text/event-stream' },
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    };
    await readUntil('"status":"pending"');
    await t.api(`/v1/requests/${json.id}/decision`, { body: { decision: 'deny', approver: 'web:bob', reason: 'no' } });
    await readUntil('"status":"denied"');
    expect(text).toMatch(/event: request\n/);
    const { done } = await reader.read();
    expect(done).toBe(true);
  });

  it('is idempotent on idempotency_key: 200 with the same row, 409 for other arguments', async () => {
    const body = { tool_name: 'pay', tool_args: { a: 1 }, idempotency_key: 'tool-call-7' };
    const first = await create(body);
    const again = await create(body);
    expect(again.res.status).toBe(200);
    expect(again.json.id).toBe(first.json.id);
    const conflict = await create({ ...body, tool_args: { a: 2 } });
    expect(conflict.res.status).toBe(409);
    expect(conflict.res.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  it('cancels, and answers 409 on a second cancel or a late decision', async () => {
    const { json } = await create();
    expect((await t.api(`/v1/requests/${json.id}/cancel`, { body: { reason: 'agent stopped' } })).status).toBe(200);
    expect((await t.api(`/v1/requests/${json.id}/cancel`, { method: 'POST' })).status).toBe(409);
    const late = await t.api(`/v1/requests/${json.id}/decision`, { body: { decision: 'approve', approver: 'web:a' } });
    expect(late.status).toBe(409);
    expect(
      ((await t.api(`/v1/requests/${json.id}`).then((r) => r.json())) as { status: string; allowed: boolean }).allowed,
    ).toBe(false);
  });

  it('answers 403 to an approver off the allowlist', async () => {
    const { json } = await create({ tool_name: 'x', approvers: ['slack:U1'] });
    const res = await t.api(`/v1/requests/${json.id}/decision`, {
      body: { decision: 'approve', approver: 'web:mallory' },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/not an approver/);
  });
});

describe('HTTP API: the audit query', () => {
  it('filters, pages newest first with a cursor, and exports CSV and NDJSON', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await create({ tool_name: i % 2 ? 'odd' : 'even', agent_id: 'a1', tool_args: { i } })).json.id);
    await t.api(`/v1/requests/${ids[0]}/decision`, { body: { decision: 'deny', approver: 'web:carol' } });

    const page1 = (await (await t.api('/v1/requests?limit=2')).json()) as {
      items: { id: string }[];
      next_cursor: string;
    };
    expect(page1.items.map((r) => r.id)).toEqual([ids[4], ids[3]]);
    const page2 = (await (await t.api(`/v1/requests?limit=2&cursor=${page1.next_cursor}`)).json()) as {
      items: { id: string }[];
      next_cursor: string;
    };
    expect(page2.items.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    const page3 = (await (await t.api(`/v1/requests?limit=2&cursor=${page2.next_cursor}`)).json()) as {
      items: { id: string }[];
      next_cursor: string | null;
    };
    expect(page3.items.map((r) => r.id)).toEqual([ids[0]]);
    expect(page3.next_cursor).toBeNull();

    const even = (await (await t.api('/v1/requests?tool_name=even')).json()) as { items: unknown[] };
    expect(even.items).toHaveLength(3);
    const byApprover = (await (await t.api('/v1/requests?responded_by=web:carol&status=denied')).json()) as {
      items: { id: string }[];
    };
    expect(byApprover.items.map((r) => r.id)).toEqual([ids[0]]);
    const future = (await (await t.api(`/v1/requests?since=${encodeURIComponent('2999-01-01T00:00:00Z')}`)).json()) as {
      items: unknown[];
    };
    expect(future.items).toHaveLength(0);

    const csv = await (await t.api('/v1/requests/export?format=csv&tool_name=odd')).text();
    const lines = csv.trim().split('\n');
    expect(lines[0]).toMatch(/^id,status,tool_name,tool_args/);
    expect(lines).toHaveLength(3);
    const ndjson = await (await t.api('/v1/requests/export?format=ndjson')).text();
    expect(
      ndjson
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual([...ids].reverse());
  });

  it('defuses spreadsheet formulas in CSV cells', async () => {
    await create({ tool_name: '=HYPERLINK("http://evil")', tool_args: {} });
    const csv = await (await t.api('/v1/requests/export?format=csv')).text();
    expect(csv).toContain(`"'=HYPERLINK(""http://evil"")"`);
  });
});

describe('HTTP API: operations endpoints', () => {
  it('serves health, readiness, metrics and an OpenAPI document built from the schemas', async () => {
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    const ready = (await (await fetch(`${t.url}/readyz`)).json()) as {
      status: string;
      checks: Record<string, { ready: boolean }>;
    };
    expect(ready.status).toBe('ready');
    expect(ready.checks.database?.ready).toBe(true);
    const { json } = await create();
    await t.api(`/v1/requests/${json.id}/decision`, { body: { decision: 'approve', approver: 'web:a' } });
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/tollgate_requests\{status="approved"\} 1/);
    expect(metrics).toMatch(/tollgate_pending_requests 0/);
    expect(metrics).toMatch(/tollgate_time_to_decision_seconds_count\{status="approved"\} 1/);
    const openapi = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
      components: { schemas: { CreateRequest: { required: string[] } } };
    };
    expect(Object.keys(openapi.paths)).toContain('/v1/requests/{id}/decision');
    expect(openapi.components.schemas.CreateRequest.required).toEqual(['tool_name']);
  });
});
