// Keeps docs/hooks.md honest: its "Use it in your agent" example runs as written against a running gateway, importing
// the built package by its name as a user does, and the deploy waits for an approval made via the API.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HookRegistry, loadHookConfig } from '../../../src/hooks/index.js';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { ensureBuilt, linkPackage } from '../../helpers/built-package.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer } from '../../helpers/server.js';
import type { TestServer } from '../../helpers/server.js';

const root = resolve(import.meta.dirname, '../../..');
let server: TestServer | undefined;
let dir: string | undefined;
beforeAll(ensureBuilt, 180_000);
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('docs/hooks.md example', () => {
  it(
    'runs as written: search ok, shell blocked, deploy waits for and gets an approval',
    { timeout: 120_000 },
    async () => {
      const markdown = readFileSync(join(root, 'docs/hooks.md'), 'utf8');
      const section = markdown.slice(markdown.indexOf('## Use it in your agent'));
      const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
      expect(code).toContain("from 'tollgate/hooks'");
      server = await startTestServer();
      dir = mkdtempSync(join(tmpdir(), 'tollgate-doc-'));
      const file = join(dir, 'agent.mts');
      linkPackage(dir);
      writeFileSync(file, code!);

      const child = spawn(process.execPath, ['--import', 'tsx', file], {
        cwd: root,
        env: { ...process.env, TOLLGATE_URL: server.url, TOLLGATE_TOKEN: server.token },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((r) => child.on('close', r));

      const pending = await eventually(async () => {
        const page = (await (await server!.api('/v1/requests?status=pending')).json()) as { items: ApiRequest[] };
        if (!page.items[0]) throw new Error(`not filed yet; stderr: ${stderr}`);
        return page.items[0];
      }, 60_000); // tsx compiles the source tree first; a loaded machine makes that slow
      expect(pending).toMatchObject({ tool_name: 'deploy', tool_args: { env: 'prod' }, agent_id: 'release-bot' });
      const res = await server.api(`/v1/requests/${pending.id}/decision`, {
        body: { decision: 'approve', approver: 'web:me' },
      });
      expect(res.status).toBe(200);

      expect(await exited).toBe(0);
      expect(stdout).toContain("result: 'results for tollgate'");
      expect(stdout).toContain('is not allowed by policy');
      expect(stdout).toContain("result: 'deployed to prod'");
    },
  );

  it('its YAML configuration loads, with and without the ci profile', () => {
    const markdown = readFileSync(join(root, 'docs/hooks.md'), 'utf8');
    const yaml = /```yaml\n([\s\S]*?)```/.exec(markdown.slice(markdown.indexOf('## YAML configuration')))?.[1] ?? '';
    // A private receiver, allowed on purpose (the one outbound check refuses loopback otherwise).
    const env = {
      APPROVAL_WEBHOOK_URL: 'http://127.0.0.1:9/hook',
      WEBHOOK_SECRET: 's',
      TOLLGATE_OUTBOUND_ALLOW: '127.0.0.1',
    };
    const quiet = { warn: () => undefined, error: () => undefined };
    const all = loadHookConfig(yaml, { env, registry: new HookRegistry({ logger: quiet }) });
    expect(all.registry.list('tool:pre').map((h) => h.name)).toEqual(['audit_log', 'policy', 'webhook']);
    const ci = loadHookConfig(yaml, { env, profile: 'ci', registry: new HookRegistry({ logger: quiet }) });
    expect(ci.registry.list('tool:pre')).toEqual([]);
    expect(ci.registry.list('tool:post').map((h) => h.name)).toEqual(['truncate_result']);
  });
});
