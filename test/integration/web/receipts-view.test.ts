/**
 * Proposed, approved and executed side by side (#19): the web request page and both exports (the web audit CSV/NDJSON
 * and `GET /v1/requests/export`) show the arguments proposed, the ones approved, and the receipt the runtime sent
 * after running the tool (`executed` / `execution_failed`, whether the arguments that ran are the approved ones).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../../channels/web/index.js';
import { argsSha256 } from '../../../src/requests/args-hash.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { visibleText, WebClient } from './web-client.js';

const TOKEN = 'bob-token-0123456789abcdef';

/** Parses one CSV line of the export (quoted cells with doubled quotes). */
function csvRow(line: string): string[] {
  const cells: string[] = [];
  const re = /(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))/g;
  for (const m of line.matchAll(re)) cells.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!);
  return cells;
}

describe('proposed, approved and executed side by side', () => {
  let server: TestServer;
  let bob: WebClient;

  beforeEach(async () => {
    server = await startTestServer({ channels: [createWebChannel({ users: [{ name: 'bob', token: TOKEN }] })] });
    bob = new WebClient(server.url);
    await bob.signIn('bob', TOKEN);
  });

  afterEach(async () => {
    await server.close();
  });

  /** Files, approves with edited arguments, and reports a run with `ranArgs`. */
  const fileApproveRun = async (ranArgs: Record<string, unknown>, outcome: 'succeeded' | 'failed' = 'succeeded') => {
    const created = (await (
      await server.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { replicas: 10 } } })
    ).json()) as { id: string };
    await server.api(`/v1/requests/${created.id}/decision`, {
      body: { decision: 'approve', approver: 'web:bob', approved_args: { replicas: 2 } },
    });
    const receipt = await server.api(`/v1/requests/${created.id}/receipt`, {
      body: { outcome, args_sha256: argsSha256('deploy', ranArgs), detail: 'rolled out' },
    });
    expect(receipt.status).toBe(201);
    return created.id;
  };

  it('the request page shows the three columns, and flags arguments that differ from the approved ones', async () => {
    const same = await fileApproveRun({ replicas: 2 });
    const page = visibleText((await bob.request(`/ui/requests/${same}`)).text);
    expect(page).toMatch(
      /Proposed \{ "replicas": 10 \} Approved With edited arguments: \{ "replicas": 2 \} Executed Ran at \S+ \S+ UTC, reported by token:\S+\. With the approved arguments \(SHA-256 matches\)\. rolled out/,
    );
    const differs = await fileApproveRun({ replicas: 50 }, 'failed');
    const other = visibleText((await bob.request(`/ui/requests/${differs}`)).text);
    expect(other).toContain('Failed at');
    expect(other).toContain(
      `With arguments that differ from the approved ones (SHA-256 ${argsSha256('deploy', { replicas: 50 })}`,
    );
    const pending = (await server.gateway.request({ toolName: 'deploy' })).request;
    expect(visibleText((await bob.request(`/ui/requests/${pending.id}`)).text)).toContain(
      'Approved Not yet: waiting for a decision. Executed Nothing reported.',
    );
  });

  it('both NDJSON exports carry the receipt beside the proposed and approved arguments', async () => {
    const id = await fileApproveRun({ replicas: 50 });
    for (const body of [
      (await bob.request('/ui/audit/export?format=ndjson')).text,
      await (await server.api('/v1/requests/export?format=ndjson')).text(),
    ]) {
      const row = body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((r) => r.id === id)!;
      expect(row).toMatchObject({
        tool_args: { replicas: 10 },
        approved_args: { replicas: 2 },
        execution: {
          outcome: 'executed',
          args_match: false,
          args_sha256: argsSha256('deploy', { replicas: 50 }),
          allowed: true,
          detail: 'rolled out',
        },
      });
    }
  });

  it('both CSV exports carry the receipt in columns next to the arguments', async () => {
    const id = await fileApproveRun({ replicas: 2 });
    const unreported = (await server.gateway.request({ toolName: 'deploy' })).request.id;
    for (const body of [
      (await bob.request('/ui/audit/export?format=csv')).text,
      await (await server.api('/v1/requests/export?format=csv')).text(),
    ]) {
      const [header, ...lines] = body.trim().split('\n');
      const columns = csvRow(header!);
      expect(columns.slice(0, 8)).toEqual([
        'id',
        'status',
        'tool_name',
        'tool_args',
        'approved_args',
        'execution_outcome',
        'execution_at',
        'execution_by',
      ]);
      const rows = lines.map(csvRow).map((cells) => Object.fromEntries(columns.map((c, i) => [c, cells[i]])));
      expect(rows.find((r) => r.id === id)).toMatchObject({
        tool_args: '{"replicas":10}',
        approved_args: '{"replicas":2}',
        execution_outcome: 'executed',
        execution_args_match: 'true',
      });
      expect(rows.find((r) => r.id === unreported)).toMatchObject({ execution_outcome: '', execution_args_match: '' });
    }
  });
});
