// Keeps README.md honest: each code block that can run here runs as written — the curl walk-through with bash (only
// the placeholders a reader fills in are filled in), the agent example importing the built package by its name, the
// configuration YAML through the config loader, and the auditor SQL against the database the walk-through wrote.
// (The set-up block is `npm install && npm start`, which CI itself runs in a fresh clone; the Policies example is
// loaded by test/unit/policy/docs.test.ts.)
import { Database } from '../../src/stores/sqlite/driver.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { matchPolicy } from '../../src/policy/index.js';
import type { ApiRequest } from '../../src/requests/serialize.js';
import { ensureBuilt, linkPackage, ROOT } from '../helpers/built-package.js';
import { eventually } from '../helpers/eventually.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const blocks = (lang: string) =>
  [...readme.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

let t: TestServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/**
 * Runs `script` with bash in the repository (where `npx tollgate` resolves), resolving with its stdout. The first
 * `npx tollgate` of a checkout installs it into npm's npx cache, which runs its `prepare` script: a full `npm run
 * build` (about 35 s of CPU) rewriting dist/ while other test files read it. The bin runs the sources in a checkout, so
 * the walk-through skips that build (npm's own `ignore-scripts` setting); the commands run as written.
 */
function bash(
  script: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], {
      cwd: ROOT,
      env: { ...process.env, npm_config_ignore_scripts: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('README.md', () => {
  it(
    'the curl walk-through runs as written and ends as the text under it says; the auditor SQL answers on its database',
    { timeout: 180_000 },
    async () => {
      const walk = blocks('sh').find((b) => b.includes('AGENT_TOKEN'))!;
      const [setup, step2, step3] = [
        walk.slice(0, walk.indexOf('# 2.')),
        walk.slice(walk.indexOf('# 2.'), walk.indexOf('# 3.')),
        walk.slice(walk.indexOf('# 3.')),
      ];
      expect(setup).toContain('<the admin token serve printed>');
      t = await startTestServer();
      const filled = setup.replace('http://127.0.0.1:8787', t.url).replace('<the admin token serve printed>', t.token);
      const first = await bash(`set -e\n${filled}\necho\necho "AGENT=$AGENT_TOKEN"\necho "ALICE=$ALICE_TOKEN"`);
      expect(first.code, first.stderr).toBe(0);
      const created = JSON.parse(first.stdout.split('\n').find((line) => line.startsWith('{'))!) as ApiRequest;
      expect(created).toMatchObject({ status: 'pending', tool_name: 'pay_invoice', filed_by: 'billing-agent' });
      const tokens = Object.fromEntries(
        first.stdout
          .split('\n')
          .filter((l) => /^(AGENT|ALICE)=/.test(l))
          .map((l) => [l.slice(0, 5), l.slice(6)]),
      );
      const env = { TOLLGATE_URL: t.url, AGENT_TOKEN: tokens.AGENT!, ALICE_TOKEN: tokens.ALICE! };

      const waiting = bash(step2.replaceAll('<id>', created.id), env);
      const decided = await bash(step3.replaceAll('<id>', created.id), env);
      expect(decided.code, decided.stderr).toBe(0);
      const waited = await waiting;
      expect(JSON.parse(waited.stdout)).toMatchObject({
        status: 'approved',
        allowed: true,
        responded_by: 'web:alice',
        responded_via: 'api',
        filed_by: 'billing-agent',
      });

      // "The agent's token answers 403 to a decision."
      const agentDecides = await fetch(`${t.url}/v1/requests/${created.id}/decision`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.AGENT}`, 'content-type': 'application/json' },
        body: '{"decision":"approve","approver":"web:alice"}',
      });
      expect(agentDecides.status).toBe(403);

      const sql = blocks('sql')[0]!
        .split(/;\s*\n/)
        .map((s) => s.trim())
        .filter((s) => s.replace(/--.*\n/g, '').trim());
      const db = new Database(t.dbPath, { readonly: true });
      try {
        const [approved, rejectedSqlite, rejectedPg] = sql.map(
          (statement) => db.prepare(statement).all() as Record<string, unknown>[],
        );
        expect(approved).toEqual([
          expect.objectContaining({ tool_name: 'pay_invoice', responded_by: 'web:alice', reason: 'matches the PO' }),
        ]);
        expect(rejectedSqlite).toEqual(rejectedPg);
      } finally {
        db.close();
      }
    },
  );

  it('the agent example runs as written, importing the built package by name', { timeout: 180_000 }, async () => {
    await ensureBuilt();
    const code = blocks('ts').find((b) => b.includes('approvalGate'))!;
    expect(code).toContain("from 'tollgate/hooks'");
    t = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'tollgate-readme-'));
    linkPackage(dir);
    writeFileSync(join(dir, 'agent.mts'), code);
    const run = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(dir!, 'agent.mts')], {
        cwd: ROOT,
        env: { ...process.env, TOLLGATE_URL: t!.url, TOLLGATE_TOKEN: t!.token },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (exit) => resolve({ code: exit, stdout, stderr }));
    });
    const pending = await eventually(async () => {
      const page = (await (await t!.api('/v1/requests?status=pending')).json()) as { items: ApiRequest[] };
      if (!page.items[0]) throw new Error('not filed yet');
      return page.items[0];
    }, 60_000);
    expect(pending).toMatchObject({ tool_name: 'deploy', tool_args: { env: 'prod' }, agent_id: 'release-bot' });
    expect(
      (await t.api(`/v1/requests/${pending.id}/decision`, { body: { decision: 'approve', approver: 'web:me' } }))
        .status,
    ).toBe(200);
    const { code: exit, stdout, stderr } = await run;
    expect(exit, stderr).toBe(0);
    expect(stdout).toContain('not allowed by policy');
    expect(stdout).toContain("result: 'deployed to prod'");
  });

  it('the configuration example loads', () => {
    const yaml = blocks('yaml').find((b) => b.startsWith('defaults:'))!;
    dir = mkdtempSync(join(tmpdir(), 'tollgate-readme-'));
    writeFileSync(join(dir, 'tollgate.yaml'), yaml);
    const config = loadConfig({ config: join(dir, 'tollgate.yaml') }, {});
    expect(config.file.defaults).toMatchObject({ timeout_s: 300, on_timeout: 'deny', options: ['Approve', 'Deny'] });
    expect(config.file.sweep_every_s).toBe(60);
  });

  it('the policies example loads, and its rules match what the comments say', () => {
    const yaml = blocks('yaml').find((b) => b.startsWith('policies:'))!;
    dir = mkdtempSync(join(tmpdir(), 'tollgate-readme-'));
    writeFileSync(join(dir, 'tollgate.yaml'), yaml);
    const { policy } = loadConfig({ config: join(dir, 'tollgate.yaml') }, {});
    expect(policy.rules.map((r) => r.name)).toEqual(['reads', 'big-payments', 'staging-deploys']);
    const rule = (facts: Parameters<typeof matchPolicy>[1]) => matchPolicy(policy, facts).rule.name;
    expect(rule({ toolName: 'search' })).toBe('reads');
    expect(rule({ toolName: 'payments.send', toolArgs: { amount: 50001 } })).toBe('big-payments');
    expect(rule({ toolName: 'payments.send', toolArgs: {} })).toBe('default');
    expect(rule({ toolName: 'deploy', toolArgs: { env: 'staging' } })).toBe('staging-deploys');
  });

  it('the people example loads, and counts and routes as its comments say', () => {
    const yaml = blocks('yaml').find((b) => b.startsWith('people:'))!;
    dir = mkdtempSync(join(tmpdir(), 'tollgate-readme-'));
    writeFileSync(join(dir, 'tollgate.yaml'), yaml);
    const { directory, policy } = loadConfig({ config: join(dir, 'tollgate.yaml') }, {});
    expect(
      ['slack:U0ALICE', 'web:alice', 'feishu:ou_7d8a', 'email:alice@example.com'].map((a) => directory.personOf(a)),
    ).toEqual(['alice', 'alice', 'alice', 'alice']);
    expect(directory.group('approvers')?.people).toEqual(['alice', 'bob', 'carol']);
    const routed = matchPolicy(policy, { toolName: 'payments.send' }).rule;
    expect(routed).toMatchObject({ name: 'payments', approvers: ['group:finance-leads'], required_approvals: 2 });
  });
});
