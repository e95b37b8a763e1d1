// Approver ids end up in responded_by, where auditors read them: empty parts, NUL, bidi overrides and zero-width
// characters are refused at the door (400 naming the field) instead of being stored.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

const bad = [':', 'web:', ':alice', 'web:ali\u0000ce', 'web:\u202Eecila', 'web:al\u200Bice', 'web:al ice', 'alice'];

describe('approver ids', () => {
  it.each(bad)('refuses %j in approvers', async (approver) => {
    const res = await t.api('/v1/requests', { body: { tool_name: 'x', approvers: [approver] } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('approvers');
  });

  it.each(bad)('refuses %j as the deciding approver, and stores nothing', async (approver) => {
    const { id } = (await (await t.api('/v1/requests', { body: { tool_name: 'x' } })).json()) as { id: string };
    const res = await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('approver');
    const row = (await (await t.api(`/v1/requests/${id}`)).json()) as { status: string; responded_by: string | null };
    expect(row).toMatchObject({ status: 'pending', responded_by: null });
  });

  it('accepts real ids and allowlist wildcards', async () => {
    const res = await t.api('/v1/requests', {
      body: { tool_name: 'x', approvers: ['slack:U0123', 'feishu:ou_abc', 'web:alice.smith', 'slack:*'] },
    });
    expect(res.status).toBe(201);
  });
});
