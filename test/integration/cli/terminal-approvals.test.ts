/**
 * Approvals from the terminal: the real CLI (a child process) against a running gateway with a people directory, as
 * alice with a decide token bound to her person; `tollgate watch` in a real terminal (tmux).
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledCliSync } from '../../helpers/compiled-cli.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { EDIT_SECRET, MULTI_FILE_EDIT, RISKY_PIPELINE } from '../../helpers/summary-calls.js';

// The CLI compiled from the sources (see compiledCli): this file starts it a dozen times or more, each start ~2 s of
// CPU less than bin/tollgate.js through tsx; the other files in test/integration/cli/ run the bin itself.
const CLI = compiledCliSync();
const CONFIG = `
people:
  - { id: alice, accounts: { web: alice, slack: U0ALICE } }
  - { id: bob, accounts: { web: bob } }
groups:
  leads: [alice, bob]
`;

let t: TestServer;
let alice: string;
beforeAll(async () => {
  t = await startTestServer({ policy: CONFIG });
  const res = await t.api('/v1/tokens', {
    body: { name: 'alice-cli', scopes: ['request:decide'], as: 'person:alice' },
  });
  alice = ((await res.json()) as { secret: string }).secret;
});
afterAll(async () => {
  await t?.close();
});

function tollgate(
  args: string[],
  token: string | undefined = alice,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, TOLLGATE_URL: t.url, TOLLGATE_TOKEN: token ?? '' };
    execFile(process.execPath, [CLI, ...args], { env, timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
async function file(body: Record<string, unknown>): Promise<string> {
  const res = await t.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { env: 'prod' }, ...body } });
  return ((await res.json()) as { id: string }).id;
}

describe('approvals from the terminal', () => {
  // Fourteen starts of the CLI, one after another: ~1 s each on two cores while the suite's other files start beside
  // it (this file is among the first, see vitest.config.ts), which once took it past 30 s (90 s below).
  it('lists what waits for alice, shows one, approves and denies as her, and says plainly what is refused', async () => {
    const mine = await file({ approvers: ['person:alice'], tool_args: { env: 'prod', password: 'hunter2' } });
    const bobs = await file({ approvers: ['web:bob'] });
    const quorum = await file({ tool_name: 'pay', approvers: ['group:leads'], required_approvals: 2 });

    const listed = await tollgate(['pending']);
    expect(listed).toMatchObject({ code: 0 });
    expect(listed.stdout).toContain('2 waiting for person:alice');
    expect(listed.stdout).toContain(mine.slice(-8));
    expect(listed.stdout).toContain(quorum.slice(-8));
    expect(listed.stdout).not.toContain(bobs.slice(-8));
    const json = JSON.parse((await tollgate(['pending', '--json'])).stdout) as { as: string; items: { id: string }[] };
    expect(json.items.map((r) => r.id).sort()).toEqual([mine, quorum].sort());

    const shown = await tollgate(['show', mine.slice(-8)]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('tool       deploy');
    expect(shown.stdout).toContain('approvers  person:alice');
    expect(shown.stdout).not.toContain('hunter2');
    expect(shown.stdout).toMatch(/created/);

    const approved = await tollgate(['approve', mine, '--reason', 'checked the diff']);
    expect(approved).toMatchObject({ code: 0, stdout: `approved ${mine} (deploy)\n` });
    expect(await t.gateway.get(mine)).toMatchObject({
      status: 'approved',
      respondedBy: 'person:alice',
      respondedByPerson: 'alice',
      reason: 'checked the diff',
    });

    expect((await tollgate(['approve', quorum])).stdout).toBe(
      `approval recorded for ${quorum} (pay); it needs 2 people\n`,
    );
    // Counted once: the quorum no longer waits for alice (from any account), only for bob.
    expect((await tollgate(['pending'])).stdout).toBe('Nothing waits for person:alice.\n');

    const notHers = await tollgate(['deny', bobs, '--reason', 'no']);
    expect(notHers.code).toBe(1);
    expect(notHers.stderr).toMatch(/^tollgate deny: /);
    expect(await t.gateway.get(bobs)).toMatchObject({ status: 'pending' });

    expect(await tollgate(['show', 'zzzz'])).toMatchObject({
      code: 1,
      stderr: 'tollgate show: no request waiting for you has the id zzzz\n',
    });
    expect(await tollgate(['approve', randomUUID()])).toMatchObject({ code: 1 });
    expect((await tollgate(['pending'], 'tg_wrong')).stderr).toContain('the gateway refused TOLLGATE_TOKEN');
    expect(await tollgate(['pending'], '')).toMatchObject({ code: 2 });
    expect((await tollgate(['deny', mine, '--args', '{}'])).code).toBe(2);
  }, 90_000);

  it('lists and shows the call summary, terminal-safe: risk, programs, the diff of an edit', async () => {
    const shell = await file({ ...RISKY_PIPELINE, approvers: ['person:alice'] });
    const edit = await file({
      ...MULTI_FILE_EDIT,
      tool_args: {
        input: MULTI_FILE_EDIT.tool_args.input.replace('*** Add File: src/', '*** Add File: src/\u001b[2K'),
      },
      approvers: ['person:alice'],
    });
    const listed = await tollgate(['pending']);
    expect(listed.stdout).toMatch(new RegExp(`${shell.slice(-8)}.*high risk\n.*\n {10}Runs curl, sudo, bash, git`));
    const shown = await tollgate(['show', edit.slice(-8)]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('summary\n  High risk: Changes a file outside the working directory');
    expect(shown.stdout).toContain('  Changes 3 files: +12 −1');
    expect(shown.stdout).toContain("  +  region: 'eu-central-1',");
    expect(shown.stdout).toContain('[2Kbilling/retry.ts');
    expect(shown.stdout).not.toContain('\u001b');
    expect(shown.stdout).not.toContain(EDIT_SECRET);
    for (const id of [shell, edit]) await tollgate(['deny', id.slice(-8)]);
  });

  it('tollgate watch shows a request arrive and leave, in a real terminal', async () => {
    const session = `tg-watch-${process.pid}`;
    const command = `TOLLGATE_URL=${t.url} TOLLGATE_TOKEN=${alice} ${process.execPath} ${CLI} watch --every 0.3`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '120', '-y', '30', command]);
    const pane = () => execFileSync('tmux', ['capture-pane', '-p', '-t', session]).toString();
    try {
      await eventually(() => expect(pane()).toContain('Waiting for person:alice'), 15_000, 50);
      const id = await file({ tool_name: 'rotate_keys', approvers: ['group:leads'] });
      await eventually(() => expect(pane()).toContain(id.slice(-8)), 10_000, 50);
      expect(pane()).toContain('rotate_keys');
      await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: 'web:bob' } });
      await eventually(() => expect(pane()).not.toContain(id.slice(-8)), 10_000, 50);
      expect(pane()).toContain('Nothing waits for person:alice.');
    } finally {
      execFileSync('tmux', ['kill-session', '-t', session]);
    }
  });
});
