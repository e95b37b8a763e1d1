/**
 * The audit page and its CSV export: filters by status, tool, agent, approver and time range, cursor paging, and an
 * export that carries the same filters and needs a session.
 */
import { Database } from '../../../src/stores/sqlite/driver.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../../channels/web/index.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { WebClient } from './web-client.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 2, 1, 9, 0);

describe('web audit page', () => {
  let server: TestServer;
  let clock: ManualClock;
  let auditor: WebClient;

  beforeEach(async () => {
    clock = new ManualClock(START);
    const channel = createWebChannel();
    // No periodic sweep: days pass on the manual clock, and a sweep every few seconds would fire thousands of times.
    server = await startTestServer({ channels: [channel], clock, file: { sweep_every_s: 0 } });
    auditor = new WebClient(server.url);
    await auditor.request((await channel.loginUrl(server.url))!);
  });

  afterEach(async () => {
    await server.close();
  });

  const rowsOf = (html: string) => [...html.matchAll(/<tr>\s*<td[^>]*><time[\s\S]*?<\/tr>/g)].map((m) => m[0]);

  /** Day 0: pay_invoice approved by web:alice; day 1: deploy denied by slack:U1; day 2: deploy pending (agent ops-bot throughout but the first). */
  async function seed(): Promise<string[]> {
    const ids: string[] = [];
    const plan = [
      { toolName: 'pay_invoice', agentId: 'billing-agent' },
      { toolName: 'deploy_service', agentId: 'ops-bot' },
      { toolName: 'deploy_service', agentId: 'ops-bot' },
    ];
    for (const input of plan) {
      ids.push((await server.gateway.request({ ...input, timeoutS: 30 * 86_400 })).request.id);
      await clock.advance(DAY);
    }
    await server.gateway.decide({
      requestId: ids[0]!,
      decision: 'approve',
      actor: { channel: 'web', userId: 'alice' },
    });
    await server.gateway.decide({
      requestId: ids[1]!,
      decision: 'deny',
      reason: 'freeze',
      actor: { channel: 'slack', userId: 'U1' },
    });
    return ids;
  }

  it('filters by status, tool, agent, approver and time range', async () => {
    const ids = await seed();
    const count = async (query: string) => rowsOf((await auditor.request(`/ui/audit${query}`)).text).length;
    expect(await count('')).toBe(3);
    expect(await count('?status=pending')).toBe(1);
    expect(await count('?tool=deploy_service')).toBe(2);
    expect(await count('?agent=billing-agent')).toBe(1);
    expect(await count('?approver=slack%3AU1')).toBe(1);
    expect(await count('?since=2026-03-02T00:00')).toBe(2);
    expect(await count('?until=2026-03-02T00:00')).toBe(1);
    expect(await count('?since=2026-03-02&until=2026-03-02T23:59&tool=deploy_service')).toBe(1);
    const page = await auditor.request('/ui/audit?status=denied');
    expect(page.text).toContain(ids[1]);
    expect(page.text).toContain('<option value="denied" selected>');
  });

  it('finds by person the requests a person voted on, not only those they settled', async () => {
    const ids = await seed();
    const quorum = (await server.gateway.request({ toolName: 'pay_invoice', requiredApprovals: 2, timeoutS: 86_400 }))
      .request.id;
    await server.gateway.decide({ requestId: quorum, decision: 'approve', actor: { channel: 'web', userId: 'alice' } });
    await server.gateway.decide({ requestId: quorum, decision: 'approve', actor: { channel: 'slack', userId: 'U1' } });
    const page = await auditor.request('/ui/audit?person=web%3Aalice');
    expect(rowsOf(page.text)).toHaveLength(2);
    expect(page.text).toContain(quorum);
    expect(page.text).toContain(ids[0]);
  });

  it('says which filter it cannot read', async () => {
    const res = await auditor.request('/ui/audit?status=maybe&since=yesterday');
    expect(res.status).toBe(400);
    expect(res.text).toContain('status must be one of pending, approved, denied, expired, cancelled');
    expect(res.text).toContain('since: not a time');
    const badCursor = await auditor.request('/ui/audit?cursor=not-a-cursor');
    expect(badCursor.status).toBe(400);
    expect(badCursor.text).toContain('start from the first page');
  });

  it('pages through the results with the store cursor, keeping the filters', async () => {
    for (let i = 0; i < 53; i++)
      await server.gateway.request({ toolName: i % 2 ? 'odd_tool' : 'even_tool', toolArgs: { i } });
    await server.gateway.request({ toolName: 'other_tool' });
    const first = await auditor.request('/ui/audit?tool=odd_tool');
    expect(rowsOf(first.text)).toHaveLength(26);
    expect(first.text).not.toContain('id="next-page"');
    const all = await auditor.request('/ui/audit');
    expect(rowsOf(all.text)).toHaveLength(50);
    const next = /id="next-page" href="([^"]+)"/.exec(all.text)![1]!.replace(/&amp;/g, '&');
    const second = await auditor.request(next);
    expect(rowsOf(second.text)).toHaveLength(4);
    expect(second.text).toContain('First page');
    const filtered = await auditor.request('/ui/audit?tool=even_tool');
    expect(rowsOf(filtered.text)).toHaveLength(27);
  });

  it('exports the filtered rows as CSV', async () => {
    await seed();
    const page = await auditor.request('/ui/audit?tool=deploy_service&status=denied');
    const href = /id="export-csv" href="([^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, '&');
    expect(href).toBe('/ui/audit/export?status=denied&tool=deploy_service&format=csv');
    const csv = await auditor.request(href);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="tollgate-requests-.*\.csv"$/);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toMatch(/^id,status,tool_name,/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('slack:U1');
    const ndjson = await auditor.request('/ui/audit/export?format=ndjson');
    expect(
      ndjson.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).tool_name),
    ).toEqual(['deploy_service', 'deploy_service', 'pay_invoice']);
  });

  it('shows the audit chain’s head and verifies the chain on request, naming an edited event', async () => {
    await seed();
    const page = await auditor.request('/ui/audit');
    const head = (await server.gateway.auditHead())!;
    expect(page.text).toContain(`hash-chained up to event #${head.event_id}`);
    expect(page.text).toContain(head.hash.slice(0, 16));
    expect((await auditor.request('/ui/audit/verify')).text).toContain('Audit trail intact');
    const raw = new Database(server.dbPath);
    try {
      raw.prepare("UPDATE confirmation_events SET actor = 'web:mallory' WHERE type = 'approved'").run();
    } finally {
      raw.close();
    }
    const broken = await auditor.request('/ui/audit/verify');
    expect(broken.text).toContain('Audit trail broken');
    expect(broken.text).toMatch(/event \d+ \(seq \d+\) was edited/);
  });
});
