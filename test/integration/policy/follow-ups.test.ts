/** Reminders and escalation on a ManualClock with the in-process scheduler, across a restart. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CardRef, Channel } from '../../../src/channel/channel.js';
import { ManualClock } from '../../../src/utils/clock.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["web:alice"]
    channels: [{ type: pager, target: C-TEAM }]
    timeout_s: 3600
    remind_after_s: 600
    escalate:
      - { after_s: 1800, approvers: ["web:ceo"], channels: [{ type: pager, target: C-EXEC }] }
`;

/** A chat channel that records what the gateway asks of it. */
class RecordingChannel implements Channel {
  readonly name = 'pager';
  readonly sent: { target: string; approvers: string[] }[] = [];
  readonly updated: { target: string; approvers: string[] }[] = [];
  readonly reminded: CardRef[] = [];
  async send(request: ConfirmationRequest, target: string) {
    this.sent.push({ target, approvers: request.approvers });
    return `msg-${target}`;
  }
  async update(request: ConfirmationRequest, card: CardRef) {
    this.updated.push({ target: card.target, approvers: request.approvers });
  }
  async remind(_request: ConfirmationRequest, card: CardRef) {
    this.reminded.push(card);
  }
}

let dir: string;
let clock: ManualClock;
let pager: RecordingChannel;
let t: TestServer;

async function start() {
  pager = new RecordingChannel();
  return startTestServer({
    clock,
    channels: [pager],
    scheduler: new InProcessScheduler({ clock }),
    dbPath: join(dir, 'tollgate.db'),
    policy: POLICY,
  });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-follow-ups-'));
  clock = new ManualClock(Date.parse('2026-11-23T09:00:00Z'));
  t = await start();
});
afterEach(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const types = async (id: string) =>
  (await t.store.events(id)).map((e) => e.type).filter((type) => type === 'reminded' || type === 'escalated');

async function fileDeploy(): Promise<string> {
  const { request } = await t.gateway.request({ toolName: 'deploy', toolArgs: { env: 'prod' } });
  await clock.advance(0);
  expect(pager.sent).toEqual([{ target: 'C-TEAM', approvers: ['web:alice'] }]);
  return request.id;
}

describe('reminders and escalation', () => {
  it('reminds once after remind_after_s, then escalates: approvers and a new card added, old cards show who may decide now', async () => {
    const id = await fileDeploy();
    await clock.advance(599_000);
    expect(await types(id)).toEqual([]);
    await clock.advance(1000);
    expect(await types(id)).toEqual(['reminded']);
    expect(pager.reminded).toEqual([{ target: 'C-TEAM', messageRef: 'msg-C-TEAM' }]);
    const reminded = (await t.store.events(id)).find((e) => e.type === 'reminded')!;
    expect(reminded).toMatchObject({ actor: 'system', detail: { step: 0, approvers: ['web:alice'] } });
    // Before its step, the escalation approver may not decide.
    expect(
      (await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: 'web:ceo' } })).status,
    ).toBe(403);

    await clock.advance(1200_000); // 30 min after filing
    expect(await types(id)).toEqual(['reminded', 'escalated']);
    const row = (await t.gateway.get(id))!;
    expect(row.approvers).toEqual(['web:alice', 'web:ceo']);
    expect(row.channels).toEqual([
      { type: 'pager', target: 'C-TEAM' },
      { type: 'pager', target: 'C-EXEC' },
    ]);
    await clock.advance(0);
    expect(pager.sent).toContainEqual({ target: 'C-EXEC', approvers: ['web:alice', 'web:ceo'] });
    expect(pager.updated).toContainEqual({ target: 'C-TEAM', approvers: ['web:alice', 'web:ceo'] });
    expect((await t.store.events(id)).find((e) => e.type === 'escalated')!.detail).toMatchObject({
      step: 0,
      added_approvers: ['web:ceo'],
      added_channels: [{ type: 'pager', target: 'C-EXEC' }],
    });

    // The escalated approver may now decide.
    const res = await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: 'web:ceo' } });
    expect(res.status).toBe(200);
    expect(pager.reminded).toHaveLength(1);
  });

  it('a request still expires at its time, after its follow-ups', async () => {
    const id = await fileDeploy();
    await clock.advance(3600_000);
    expect((await t.gateway.get(id))!.status).toBe('expired');
    expect(await types(id)).toEqual(['reminded', 'escalated']);
  });

  it('a decided request gets no reminder', async () => {
    const id = await fileDeploy();
    await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'deny', approver: 'web:alice' } });
    await clock.advance(3600_000);
    expect(await types(id)).toEqual([]);
  });

  it('survives a restart: the timer is re-armed for the next follow-up, and none runs twice', async () => {
    const id = await fileDeploy();
    await clock.advance(700_000);
    expect(await types(id)).toEqual(['reminded']);
    await t.close();
    t = await start();
    await t.gateway.reconciled();
    await clock.advance(1100_000);
    expect(await types(id)).toEqual(['reminded', 'escalated']);
    expect(pager.reminded).toEqual([]);
    await clock.advance(1800_000);
    expect((await t.gateway.get(id))!.status).toBe('expired');
    expect(await types(id)).toEqual(['reminded', 'escalated']);
  });
});
