/**
 * The Python example says, while it waits, which request it filed and where to decide it — so whoever runs the agent
 * is not left looking at a silent terminal. Run with python3 (standard library only) against an in-process gateway.
 */
import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PYTHON3 } from '../../support/python.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

describe('examples/python/gate_tool_call.py while waiting', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(async () => {
    await t.close();
  });

  it('prints the request id and its web inbox page on stderr before the verdict arrives', async () => {
    const child = spawn(PYTHON3, ['examples/python/gate_tool_call.py', 'delete_path', '{"path": "/tmp/py-wait"}'], {
      env: { ...process.env, TOLLGATE_URL: t.url, TOLLGATE_TOKEN: t.token },
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const line = await eventually(() => {
      const match = /waiting for a decision on request ([0-9a-f-]{36}) .*decide it at (\S+)/.exec(stderr);
      if (!match) throw new Error(`no waiting line yet: ${JSON.stringify(stderr)}`);
      return match;
    });
    const [, id, where] = line;
    expect(where).toBe(`${t.url}/ui/requests/${id}`);
    expect(stderr).toContain('approvers: anyone who sees the card');
    // Still waiting: nothing decided, nothing run.
    expect(stdout).toBe('');
    expect((await (await t.api(`/v1/requests/${id}`)).json()) as { status: string }).toMatchObject({
      status: 'pending',
    });
    await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: 'web:admin' } });
    expect(await exited).toBe(0);
    expect(stdout).toContain('deleted /tmp/py-wait');
  });
});

describe('what a newcomer copies from README.md and docs/', () => {
  it('uses TOLLGATE_TOKEN (never a bare TOKEN) and npx tollgate in the README', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const files = [
      'README.md',
      ...readdirSync('docs')
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/\$\{?TOKEN\b|(^|\s)TOKEN=/m);
    }
    const readme = readFileSync('README.md', 'utf8');
    const shell = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).join('\n');
    expect(shell).toContain('npx tollgate');
    // In a clone `tollgate` is not on PATH: every command in the README's shell blocks goes through npx.
    expect(
      shell
        .split('\n')
        .filter((line) => /(^|[\s;&|(]|\$\()tollgate [a-z]/.test(line) && !/npx tollgate [a-z]/.test(line)),
    ).toEqual([]);
  });
});
