/**
 * The tool server of docs/audit.md ("Verifying where the tool runs"), run as written from the built package by name:
 * it refuses a call without a verdict, runs the approved one, and refuses the same token for other arguments and a
 * denial's token — in a separate process that holds no gateway code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, linkPackage, ROOT } from '../../helpers/built-package.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const doc = readFileSync(join(ROOT, 'docs/audit.md'), 'utf8');
const example = /## Signed verdicts[\s\S]*?```js\n([\s\S]*?)```/.exec(doc)![1]!;

let dir: string;
let t: TestServer;
let tool: ChildProcess;
let toolUrl: string;

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'tollgate-tool-'));
  linkPackage(dir);
  writeFileSync(join(dir, 'tool-server.mjs'), example);
  t = await startTestServer();
  const port = await freePort();
  toolUrl = `http://127.0.0.1:${port}`;
  tool = spawn(process.execPath, ['tool-server.mjs'], {
    cwd: dir,
    env: { ...process.env, TOLLGATE_URL: t.url, PORT: String(port) },
    stdio: 'ignore',
  });
  await eventually(async () => {
    await fetch(toolUrl, { method: 'POST', body: '{}' });
  }, 15_000);
}, 180_000);
afterAll(async () => {
  tool?.kill();
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const callTool = async (args: Record<string, unknown>, token?: string) => {
  const res = await fetch(toolUrl, {
    method: 'POST',
    headers: token ? { authorization: `Verdict ${token}` } : {},
    body: JSON.stringify({ args }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
async function verdict(
  args: Record<string, unknown>,
  decision: 'approve' | 'deny',
): Promise<{ id: string; verdict_token: string }> {
  const { id } = (await (
    await t.api('/v1/requests', { body: { tool_name: 'pay_invoice', tool_args: args } })
  ).json()) as { id: string };
  await t.api(`/v1/requests/${id}/decision`, { body: { decision, approver: 'web:alice' } });
  return (await (await t.api(`/v1/requests/${id}?wait=5`)).json()) as { id: string; verdict_token: string };
}

describe('the tool server of docs/audit.md', () => {
  it('runs only calls a human approved, with the approved arguments', async () => {
    expect(await callTool({ amount: 10 })).toMatchObject({ status: 403, body: { refused: 'malformed' } });
    const approved = await verdict({ amount: 10 }, 'approve');
    expect(await callTool({ amount: 10 }, approved.verdict_token)).toEqual({
      status: 200,
      body: { paid: 10, request: approved.id },
    });
    expect(await callTool({ amount: 10_000 }, approved.verdict_token)).toMatchObject({
      status: 403,
      body: { refused: 'args_mismatch' },
    });
    const denied = await verdict({ amount: 11 }, 'deny');
    expect(await callTool({ amount: 11 }, denied.verdict_token)).toMatchObject({
      status: 403,
      body: { refused: 'denied' },
    });
  });
});
