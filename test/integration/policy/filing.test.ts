import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const POLICY = `
policies:
  - name: reads
    match: { tool: "read_*" }
    decision: allow
  - name: no-prod-shell
    match: { tool: shell, metadata: { env: prod } }
    decision: deny
    reason: "No shell on production; use a runbook."
  - name: big-payments
    match: { tool: "payments.*", when: "args.amount > 50000" }
    approvers: ["web:cfo", "web:controller"]
    required_approvals: 2
    timeout_s: 3600
    on_timeout: deny
default:
  decision: ask
  approvers: ["web:oncall"]
`;

let dir: string;
let t: TestServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-policy-'));
  writeFileSync(join(dir, 'tollgate.yaml'), POLICY);
  t = await startTestServer({ env: { TOLLGATE_CONFIG: join(dir, 'tollgate.yaml') } });
});
afterEach(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

async function file(body: Record<string, unknown>) {
  const response = await t.api('/v1/requests', { body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('POST /v1/requests under a policy', () => {
  it('an allow rule answers 201 with the final approved row, and writes created + approved events naming the rule', async () => {
    const { status, body } = await file({
      tool_name: 'read_file',
      tool_args: { path: '/etc/hosts' },
      approvers: ['web:alice'],
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      status: 'approved',
      allowed: true,
      responded_by: 'policy:reads',
      responded_via: 'policy',
    });
    const events = await t.store.events(body.id as string);
    expect(events.map((e) => e.type)).toEqual(['created', 'approved']);
    expect(events[0]!.detail).toEqual({
      policy: { rule: 'reads', decision: 'allow' },
      asked: expect.stringMatching(/^v1\./),
      // A tool the summaries do not know is medium (docs/summaries.md, `unknown_tool`).
      risk: 'medium',
    });
    expect(events[1]).toMatchObject({ actor: 'policy:reads', channel: 'policy', detail: { rule: 'reads' } });
    // No card, no timer: nothing is left pending.
    expect(await t.store.messages(body.id as string)).toEqual([]);
    expect((await t.gateway.countByStatus()).pending).toBe(0);
  });

  it('a deny rule answers the final denied row with the rule’s reason', async () => {
    const { status, body } = await file({
      tool_name: 'shell',
      tool_args: { command: 'ls' },
      metadata: { env: 'prod' },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      status: 'denied',
      allowed: false,
      responded_by: 'policy:no-prod-shell',
      reason: 'No shell on production; use a runbook.',
    });
    const events = await t.store.events(body.id as string);
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ['created', null],
      ['denied', 'policy:no-prod-shell'],
    ]);
  });

  it('an ask rule routes the request: its approvers and quorum win, the timeout is the shorter, on_timeout deny holds', async () => {
    const { status, body } = await file({
      tool_name: 'payments.send',
      tool_args: { amount: 90000 },
      approvers: ['web:mallory'],
      required_approvals: 1,
      timeout_s: 86400,
      on_timeout: 'approve',
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      status: 'pending',
      approvers: ['web:cfo', 'web:controller'],
      required_approvals: 2,
      on_timeout: 'deny',
    });
    expect(Date.parse(body.expires_at as string) - Date.parse(body.created_at as string)).toBe(3600_000);
    expect((await t.store.events(body.id as string))[0]!.detail).toEqual({
      policy: { rule: 'big-payments', decision: 'ask' },
      asked: expect.stringMatching(/^v1\./),
      // A tool the summaries do not know is medium (docs/summaries.md, `unknown_tool`).
      risk: 'medium',
    });
    // The request's own approver is not among the rule's: refused.
    const mallory = await t.api(`/v1/requests/${String(body.id)}/decision`, {
      body: { decision: 'approve', approver: 'web:mallory' },
    });
    expect((await mallory.json()) as unknown).toMatchObject({ status: 403 });
  });

  it('a request may tighten its rule: more approvals and a shorter timeout are kept', async () => {
    const { body } = await file({
      tool_name: 'payments.send',
      tool_args: { amount: 90000 },
      required_approvals: 3,
      timeout_s: 60,
    });
    expect(body).toMatchObject({ required_approvals: 3 });
    expect(Date.parse(body.expires_at as string) - Date.parse(body.created_at as string)).toBe(60_000);
  });

  it('no rule matches: default applies (ask, its approvers)', async () => {
    const { body } = await file({ tool_name: 'payments.send', tool_args: { amount: 10 } });
    expect(body).toMatchObject({ status: 'pending', approvers: ['web:oncall'] });
    expect((await t.store.events(body.id as string))[0]!.detail).toEqual({
      policy: { rule: 'default', decision: 'ask' },
      asked: expect.stringMatching(/^v1\./),
      // A tool the summaries do not know is medium (docs/summaries.md, `unknown_tool`).
      risk: 'medium',
    });
  });

  it('repeating an idempotency key of a settled request answers 200 with the same row', async () => {
    const first = await file({ tool_name: 'read_file', tool_args: { path: 'a' }, idempotency_key: 'k1' });
    const again = await file({ tool_name: 'read_file', tool_args: { path: 'a' }, idempotency_key: 'k1' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
  });
});

describe('a bad policy stops the start', () => {
  it('names the file, the rule and the position in the when expression', () => {
    const path = join(dir, 'bad.yaml');
    writeFileSync(path, 'policies:\n  - name: big\n    match: { when: "args.amount >> 5" }\n');
    expect(() => loadConfig({ config: path }, {})).toThrow(
      `${path}: policies[0] "big".match.when: line 1, column 14: `,
    );
  });
});

describe('/metrics', () => {
  it('counts requests by the rule that matched and its decision', async () => {
    await file({ tool_name: 'read_file' });
    await file({ tool_name: 'read_dir' });
    await file({ tool_name: 'shell', metadata: { env: 'prod' } });
    await file({ tool_name: 'other' });
    const text = await (await fetch(`${t.url}/metrics`)).text();
    expect(text).toContain('tollgate_policy_decisions_total{rule="reads",decision="allow"} 2');
    expect(text).toContain('tollgate_policy_decisions_total{rule="no-prod-shell",decision="deny"} 1');
    expect(text).toContain('tollgate_policy_decisions_total{rule="default",decision="ask"} 1');
  });
});

describe('a rule naming a channel that is not enabled', () => {
  it('stops the start, naming the rule and the channel', async () => {
    const path = join(dir, 'chan.yaml');
    writeFileSync(
      path,
      'policies:\n  - name: finance\n    match: { tool: pay }\n    channels: [{ type: slack, target: C0FIN }]\n',
    );
    await expect(startTestServer({ env: { TOLLGATE_CONFIG: path } })).rejects.toThrow(
      `${path}: policies[0] "finance".channels[0].type: channel "slack" is not enabled (enabled: web, push)`,
    );
  });
});
