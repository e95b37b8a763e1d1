/**
 * The decision forms without a browser: approve, deny with a reason, approve edited arguments (validated, stored
 * apart, secrets kept), CSRF and origin checks, and escaping of attacker-controlled arguments.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../../channels/web/index.js';
import type { NewRequestInput } from '../../../src/gateway/gateway.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { decodeEntities, formValue, WebClient } from './web-client.js';

const TOKENS = { bob: 'bob-token-0123456789abcdef', carol: 'carol-token-0123456789abcd' };

describe('web decision forms', () => {
  let server: TestServer;
  let bob: WebClient;

  beforeEach(async () => {
    server = await startTestServer({
      channels: [createWebChannel({ users: Object.entries(TOKENS).map(([name, token]) => ({ name, token })) })],
    });
    bob = new WebClient(server.url);
    await bob.signIn('bob', TOKENS.bob);
  });

  afterEach(async () => {
    await server.close();
  });

  const file = async (input: Partial<NewRequestInput> = {}) =>
    (
      await server.gateway.request({
        toolName: 'deploy_service',
        toolArgs: { service: 'billing', version: '1.4.2' },
        ...input,
      })
    ).request;
  const apiView = async (id: string) =>
    (await (await server.api(`/v1/requests/${id}`)).json()) as Record<string, unknown>;

  it('approves as web:<name> and the API returns the verdict', async () => {
    const request = await file();
    const res = await bob.decide(request.id, { decision: 'approve' });
    expect(res.path).toBe(`/ui/requests/${request.id}?notice=approved`);
    expect(res.text).toContain('Approved. The agent has its answer.');
    expect(res.text).not.toContain('id="decision-form"');
    expect(await apiView(request.id)).toMatchObject({
      status: 'approved',
      allowed: true,
      responded_by: 'web:bob',
      responded_via: 'web',
      approved_args: null,
    });
  });

  it('denies with a reason', async () => {
    const request = await file();
    await bob.decide(request.id, { decision: 'deny', reason: '  not on a Friday  ' });
    expect(await apiView(request.id)).toMatchObject({
      status: 'denied',
      allowed: false,
      reason: 'not on a Friday',
      responded_by: 'web:bob',
    });
  });

  it('stores edited arguments apart from the proposed ones, keeping masked secrets', async () => {
    const request = await file({
      toolArgs: { service: 'billing', replicas: 10, db_password: 'p4ss-w0rd', env: { API_KEY: 'k-123' } },
    });
    const page = await bob.request(`/ui/requests/${request.id}`);
    expect(page.text).not.toContain('p4ss-w0rd');
    expect(page.text).not.toContain('k-123');
    const edited = { service: 'billing', replicas: 2, db_password: '••••', env: { API_KEY: '••••' } };
    await bob.decide(request.id, {
      decision: 'approve',
      edit: '1',
      approved_args: JSON.stringify(edited),
      reason: 'two replicas are enough',
    });
    expect(await apiView(request.id)).toMatchObject({
      status: 'approved',
      tool_args: { service: 'billing', replicas: 10, db_password: 'p4ss-w0rd', env: { API_KEY: 'k-123' } },
      approved_args: { service: 'billing', replicas: 2, db_password: 'p4ss-w0rd', env: { API_KEY: 'k-123' } },
      reason: 'two replicas are enough',
    });
    const after = await bob.request(`/ui/requests/${request.id}`);
    expect(after.text).toContain('(with edited arguments)');
    expect(after.text).not.toContain('p4ss-w0rd');
  });

  it('masks secrets inside strings on the page, the editor and the raw view, and never runs a mask', async () => {
    const token = 'sk-live-0123456789abcdef';
    const awsSecret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const command = `export AWS_SECRET_ACCESS_KEY=${awsSecret} && curl -H "Authorization: Bearer ${token}" https://api.example.com/v1/charges`;
    const toolArgs = {
      command,
      description: 'List charges',
      patch: `+DB_URL=postgres://app:hunter2-pw@db/prod\n+x = 1`,
    };
    const request = await file({ toolName: 'Bash', agentKind: 'claude', toolArgs });
    const page = await bob.request(`/ui/requests/${request.id}`);
    const raw = await bob.request(`/ui/requests/${request.id}/raw`);
    for (const [name, html] of [
      ['page', page.text],
      ['raw', raw.text],
    ] as const) {
      for (const secret of [token, awsSecret, 'hunter2-pw']) expect(html, `${name}: ${secret}`).not.toContain(secret);
    }
    const editor = decodeEntities(/<textarea name="approved_args"[^>]*>([\s\S]*?)<\/textarea>/.exec(page.text)![1]!);
    expect(editor).toContain(
      'export AWS_SECRET_ACCESS_KEY=•••• && curl -H \\"Authorization: ••••\\" https://api.example.com',
    );

    // Edited around the hidden token: refused, naming the field; nothing decided.
    const around = JSON.parse(editor) as Record<string, string>;
    around.command = around.command!.replace('charges', 'refunds');
    const refused = await bob.decide(request.id, {
      decision: 'approve',
      edit: '1',
      approved_args: JSON.stringify(around),
    });
    expect(refused.status).toBe(400);
    expect(decodeEntities(refused.text)).toContain('approved_args.command still holds a masked secret (••••)');
    expect(await apiView(request.id)).toMatchObject({ status: 'pending' });

    // The editor's text with another field changed: the command runs as proposed, secrets and all.
    const kept = { ...(JSON.parse(editor) as Record<string, string>), description: 'List the charges' };
    await bob.decide(request.id, { decision: 'approve', edit: '1', approved_args: JSON.stringify(kept) });
    expect(await apiView(request.id)).toMatchObject({
      status: 'approved',
      approved_args: { ...toolArgs, description: 'List the charges' },
    });
  });

  it('refuses edited arguments that are not a JSON object, keeping the text typed', async () => {
    const request = await file();
    for (const [text, words] of [
      ['{"service": "billing",', 'not valid JSON'],
      ['["billing"]', 'must be a JSON object'],
      ['null', 'must be a JSON object'],
    ] as const) {
      const res = await bob.decide(request.id, { decision: 'approve', edit: '1', approved_args: text });
      expect(res.status, text).toBe(400);
      expect(res.text).toContain(words);
      expect(res.text).toContain(text.replace(/"/g, '&quot;'));
    }
    const denyEdit = await bob.decide(request.id, { decision: 'deny', edit: '1', approved_args: '{}' });
    expect(denyEdit.status).toBe(400);
    expect(await apiView(request.id)).toMatchObject({ status: 'pending' });
  });

  it("rejects posts without the CSRF token, with another session's token, or from another origin", async () => {
    const request = await file();
    const page = await bob.request(`/ui/requests/${request.id}`);
    const fields = { decision: 'approve', nonce: formValue(page.text, 'nonce') };
    const carol = new WebClient(server.url);
    const carolsInbox = await carol.signIn('carol', TOKENS.carol);
    const attempts: [Record<string, string>, Record<string, string>][] = [
      [fields, { origin: server.url }],
      [{ ...fields, _csrf: formValue(carolsInbox.text, '_csrf') }, { origin: server.url }],
      [{ ...fields, _csrf: formValue(page.text, '_csrf') }, { origin: 'https://evil.example' }],
      [{ ...fields, _csrf: formValue(page.text, '_csrf') }, { origin: 'null' }],
      [{ ...fields, _csrf: formValue(page.text, '_csrf') }, { 'sec-fetch-site': 'cross-site' }],
    ];
    for (const [form, headers] of attempts) {
      const res = await bob.request(`/ui/requests/${request.id}/decision`, { form, headers, manual: true });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.text).toContain('Form rejected');
    }
    expect(await apiView(request.id)).toMatchObject({ status: 'pending' });
    expect((await server.store.events(request.id)).map((e) => e.type)).not.toContain('decision_rejected');
  });

  it('tells an approver who is not on the allowlist that nothing changed', async () => {
    const request = await file({ approvers: ['web:carol'] });
    // The page shows bob no buttons; a post made anyway (a stale page, a crafted form) is still refused.
    expect((await bob.request(`/ui/requests/${request.id}`)).text).not.toContain('id="decision-form"');
    const res = await bob.decide(request.id, { decision: 'approve', nonce: request.nonce });
    expect(res.path).toContain('notice=not_authorized');
    expect(res.text).toContain('You are not an approver of this request.');
    expect(await apiView(request.id)).toMatchObject({ status: 'pending' });
  });

  it('records a partial approval of a quorum request', async () => {
    const request = await file({ requiredApprovals: 2 });
    expect((await bob.decide(request.id, { decision: 'approve' })).path).toContain('notice=recorded');
    const carol = new WebClient(server.url);
    await carol.signIn('carol', TOKENS.carol);
    expect((await carol.decide(request.id, { decision: 'approve' })).path).toContain('notice=approved');
    expect(await apiView(request.id)).toMatchObject({ status: 'approved' });
  });

  it('escapes attacker-controlled text everywhere on the page', async () => {
    const payload = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'`';
    const request = await file({
      toolName: 'run<b>',
      toolArgs: { cmd: payload, [payload]: 1 },
      prompt: payload,
      agentId: payload,
      sessionId: payload,
    });
    await server.gateway.decide({
      requestId: request.id,
      decision: 'deny',
      reason: payload,
      actor: { channel: 'api', userId: 'ops' },
    });
    for (const path of [
      `/ui/requests/${request.id}`,
      '/ui/audit',
      `/ui/requests/${request.id}?notice=${encodeURIComponent(payload)}`,
    ]) {
      const page = await bob.request(path);
      expect(page.text, path).not.toMatch(/<script>alert|<img src=x|<b>/);
      expect(page.text, path).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });

  it('answers unknown requests with a 404 page', async () => {
    expect((await bob.request('/ui/requests/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await bob.request('/ui/requests/not-a-uuid')).status).toBe(404);
    expect((await bob.request('/ui/nowhere')).status).toBe(404);
  });
});
