/**
 * `tollgate serve --db postgres://…` end to end, as real processes on a fresh database: file a request, decide it,
 * restart the gateway, and find the verdict and its events still there; `tollgate migrate` on the same URL.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.js';
import { compiledCliSync } from '../../helpers/compiled-cli.js';
import { freshDatabase, type FreshDatabase } from './fresh-database.js';

// The CLI compiled from the sources, as the child gateways here run (see compiledCli): ~2 s of CPU less a start than
// bin/tollgate.js through tsx; test/integration/cli/ runs the bin itself.
const CLI = compiledCliSync();
let database: FreshDatabase;
let gateway: ChildGateway | undefined;

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await gateway?.kill();
  await database?.drop();
});

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return cliWith({}, ...args);
}

function cliWith(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { timeout: 30_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('tollgate serve --db postgres://', () => {
  it('migrates, files, decides, and keeps the verdict across a restart', async () => {
    const migrated = await cli('migrate', '--db', database.url);
    expect(migrated, migrated.stderr).toMatchObject({ code: 0 });
    expect(migrated.stdout).toContain(`migrations applied to ${database.url}`);

    gateway = await startChildGateway(database.url);
    expect(gateway.output()).toContain(`database ${database.url}`);
    const created = await gateway.api('/v1/requests', {
      body: { tool_name: 'pay_invoice', tool_args: { invoice: 'INV-7', amount: 1200 }, idempotency_key: 'pg-e2e' },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const decided = await gateway.api(`/v1/requests/${id}/decision`, {
      body: { decision: 'approve', approver: 'web:alice', reason: 'matches the PO' },
    });
    expect(decided.status).toBe(200);
    expect((await gateway.api('/readyz')).status).toBe(200);
    expect(await gateway.kill('SIGTERM')).toBe(0);

    gateway = await startChildGateway(database.url);
    const after = (await (await gateway.api(`/v1/requests/${id}`)).json()) as Record<string, unknown>;
    expect(after).toMatchObject({
      id,
      status: 'approved',
      allowed: true,
      responded_by: 'web:alice',
      reason: 'matches the PO',
      tool_args: { invoice: 'INV-7', amount: 1200 },
    });
    const again = await gateway.api('/v1/requests', {
      body: { tool_name: 'pay_invoice', tool_args: { invoice: 'INV-7', amount: 1200 }, idempotency_key: 'pg-e2e' },
    });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(id);
    const list = (await (await gateway.api('/v1/requests?status=approved')).json()) as { items: { id: string }[] };
    expect(list.items.map((r) => r.id)).toEqual([id]);

    const audit = await cli('audit', '--db', database.url, '--format', 'ndjson', '--status', 'approved');
    expect(audit.code, audit.stderr).toBe(0);
    expect(
      audit.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: string; responded_by: string }),
    ).toMatchObject([{ id, responded_by: 'web:alice' }]);
    expect(await gateway.kill('SIGTERM')).toBe(0);
    gateway = undefined;
  }, 90_000); // two child gateways start through tsx: 12 s alone, past 30 s under a full run on 2 cores

  it('exits with the reason when start-up fails after the database opened (the pool and replica lock are closed)', async () => {
    const started = Date.now();
    const result = await cliWith(
      { SLACK_BOT_TOKEN: 'xoxb-1', TOLLGATE_API_TOKENS: 'x', LOG_LEVEL: 'error' },
      'serve',
      '--port',
      '0',
      '--db',
      database.url,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('SLACK_SIGNING_SECRET');
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('says what it waits for and gives up, bounded, when nothing listens at the URL', async () => {
    const started = Date.now();
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [CLI, 'migrate', '--db', 'postgres://postgres@127.0.0.1:1/none'],
        { timeout: 30_000, env: { ...process.env, TOLLGATE_DB_WAIT_S: '1' } },
        (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('waiting for PostgreSQL at postgres://postgres@127.0.0.1:1/none');
    expect(result.stderr).toMatch(/database cannot be reached/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
