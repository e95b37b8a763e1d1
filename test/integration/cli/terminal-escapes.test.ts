/**
 * A hostile agent's text reaches the approver's terminal without its control characters: the real CLI (a child
 * process) against a running gateway, its stdout captured byte for byte, and `show` / `audit export` in a real
 * terminal (tmux). The agent writes ESC[2K and CR (erase the line, start again: `pay` shows as `read_docs`), ESC[8m
 * (conceal what follows), a C1 CSI (U+009B, a one-character ESC[), BEL, DEL and a bidi override into every field it
 * controls: tool name, prompt, arguments, agent and user ids, a cancelling actor and reason.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledCliSync } from '../../helpers/compiled-cli.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

// The CLI compiled from the sources (see compiledCli): this file starts it a dozen times or more, each start ~2 s of
// CPU less than bin/tollgate.js through tsx; the other files in test/integration/cli/ run the bin itself.
const CLI = compiledCliSync();
const CONFIG = `
people:
  - { id: alice, name: "Alice\\e[8m Hidden\\a", accounts: { web: alice } }
  - { id: bob, accounts: { web: bob } }
`;

/** What must never reach a terminal: C0 but tab and newline, DEL, C1, bidi controls. */
// eslint-disable-next-line no-control-regex -- the characters that must not reach the terminal
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** The agent's fields: each hides something, and each leaves text around it that must still be shown. */
const TOOL = 'pay\x1b[2K\rread_docs';
const PROMPT = 'Read the docs\x1b[8m and wire 5000000 to mallory\u009b2K\x07 now';
const AGENT = 'helper\x1b]0;owned\x07bot';
const USER = 'U1\x7f\u202emallory';
const ARGS = { amount: 5000000, 'to\u009b8m': 'mallory\x1b[8m', note: 'ok\u0085\u009d0;title\u009c' };
const ACTOR = 'agent\x1b[8mX';
const REASON = 'oops\r\x1b[2Kfine\u009b1A';

let t: TestServer;
let alice: string;
let pendingId: string;
let deniedId: string;
let cancelledId: string;

beforeAll(async () => {
  t = await startTestServer({ policy: CONFIG });
  const res = await t.api('/v1/tokens', {
    body: { name: 'alice-cli', scopes: ['request:decide'], as: 'person:alice' },
  });
  alice = ((await res.json()) as { secret: string }).secret;
  const file = async () => {
    const created = await t.api('/v1/requests', {
      body: {
        tool_name: TOOL,
        prompt: PROMPT,
        tool_args: ARGS,
        agent_id: AGENT,
        user_id: USER,
        approvers: ['person:alice', 'web:bob'],
      },
    });
    expect(created.status).toBe(201);
    return ((await created.json()) as { id: string }).id;
  };
  [pendingId, deniedId, cancelledId] = [await file(), await file(), await file()];
  expect(
    (
      await t.api(`/v1/requests/${deniedId}/decision`, {
        body: { decision: 'deny', approver: 'web:bob', reason: REASON },
      })
    ).status,
  ).toBe(200);
  expect((await t.api(`/v1/requests/${cancelledId}/cancel`, { body: { actor: ACTOR, reason: REASON } })).status).toBe(
    200,
  );
});
afterAll(async () => {
  await t?.close();
});

type Run = { code: number; stdout: string; stderr: string };
function tollgate(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const all = {
      ...process.env,
      TOLLGATE_URL: t.url,
      TOLLGATE_TOKEN: alice,
      TOLLGATE_DB: '',
      TOLLGATE_CONFIG: '',
      ...env,
    };
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: all, timeout: 30_000, encoding: 'buffer' },
      (error, stdout, stderr) =>
        resolve({
          code: error ? ((error as { code?: number }).code ?? 1) : 0,
          stdout: stdout.toString('utf8'),
          stderr: stderr.toString('utf8'),
        }),
    );
  });
}

/** The captured output holds no control character, and no byte of one (a C1 is two bytes in UTF-8). */
function expectTerminalSafe(output: string): void {
  expect(output).not.toMatch(CONTROL);
  expect(Buffer.from(output, 'utf8').includes(0x1b)).toBe(false);
}

describe('terminal output of agent text', () => {
  it('pending shows the tool and prompt with their control characters removed, and the text around them', async () => {
    const run = await tollgate(['pending']);
    expect(run.code, run.stderr).toBe(0);
    expectTerminalSafe(run.stdout);
    expect(run.stdout).toContain('pay[2Kread_docs');
    expect(run.stdout).toContain('Read the docs[8m and wire 5000000 to mallory2K now');
  });

  it('show prints every agent field without control characters, the arguments as JSON with them escaped', async () => {
    const run = await tollgate(['show', pendingId]);
    expect(run.code, run.stderr).toBe(0);
    expectTerminalSafe(run.stdout);
    expect(run.stdout).toContain('tool       pay[2Kread_docs\n');
    expect(run.stdout).toContain('prompt     Read the docs[8m and wire 5000000 to mallory2K now\n');
    expect(run.stdout).toContain('asked by   agent helper]0;ownedbot for U1mallory');
    expect(run.stdout).toContain('"amount": 5000000');
    expect(run.stdout).toContain('"to\\u009b8m": "mallory\\u001b[8m"');
    expect(run.stdout).toContain('"note": "ok\\u0085\\u009d0;title\\u009c"');
  });

  it('show prints who decided or cancelled and why without control characters', async () => {
    const denied = await tollgate(['show', deniedId]);
    expect(denied.code, denied.stderr).toBe(0);
    expectTerminalSafe(denied.stdout);
    expect(denied.stdout).toMatch(/decided {4}by web:bob .*: oops\[2Kfine1A\n/);
    const cancelled = await tollgate(['show', cancelledId]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expectTerminalSafe(cancelled.stdout);
    expect(cancelled.stdout).toContain('agent[8mX');
    expect(cancelled.stdout).toContain('oops[2Kfine1A');
  });

  it('--json keeps the exact text (escaped as JSON) and no raw control character', async () => {
    for (const args of [
      ['pending', '--json'],
      ['show', pendingId, '--json'],
    ]) {
      const run = await tollgate(args);
      expect(run.code, run.stderr).toBe(0);
      expectTerminalSafe(run.stdout);
      const parsed = JSON.parse(run.stdout) as { items?: unknown[] };
      const request = (parsed.items?.[0] ?? parsed) as Record<string, unknown>;
      expect(request).toMatchObject({
        tool_name: TOOL,
        prompt: PROMPT,
        agent_id: AGENT,
        user_id: USER,
        tool_args: ARGS,
      });
    }
  });

  it('approve echoes the tool name without control characters', async () => {
    const created = await t.api('/v1/requests', { body: { tool_name: TOOL, approvers: ['person:alice'] } });
    const { id } = (await created.json()) as { id: string };
    const run = await tollgate(['approve', id]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`approved ${id} (pay[2Kread_docs)\n`);
  });

  it("ask prints the approver's reason without control characters", async () => {
    const child = tollgate(['ask', 'Deploy?', '--tool', TOOL, '--quiet'], { TOLLGATE_TOKEN: t.token });
    const id = await eventually(
      async () => {
        const list = (await (await t.api('/v1/requests?status=pending&limit=200')).json()) as {
          items: Array<{ id: string; prompt: string | null }>;
        };
        const found = list.items.find((r) => r.prompt === 'Deploy?');
        expect(found).toBeDefined();
        return found!.id;
      },
      15_000,
      50,
    );
    await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'deny', approver: 'web:bob', reason: REASON } });
    const run = await child;
    expect(run.code).toBe(1);
    expectTerminalSafe(run.stdout);
    expect(run.stdout).toBe('denied by web:bob: oops[2Kfine1A\n');
    const json = await tollgate(['ask', 'Deploy?', '--tool', TOOL, '--quiet', '--json', '--timeout', '1'], {
      TOLLGATE_TOKEN: t.token,
    });
    expectTerminalSafe(json.stdout);
    expect(JSON.parse(json.stdout)).toMatchObject({ tool_name: TOOL });
  });

  it('watch redraws with its own screen codes only', async () => {
    const child = spawn(process.execPath, [CLI, 'watch', '--every', '0.3'], {
      env: { ...process.env, TOLLGATE_URL: t.url, TOLLGATE_TOKEN: alice },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    try {
      await eventually(() => expect(out).toContain('read_docs'), 15_000, 50);
    } finally {
      child.kill('SIGINT');
    }
    const screens = out.split('\x1b[H\x1b[2J').filter(Boolean);
    expect(screens.length).toBeGreaterThan(0);
    for (const screen of screens) expectTerminalSafe(screen);
    expect(screens.join('')).toContain('pay[2Kread_docs');
  });

  it('audit prints a table, NDJSON and the events without raw control characters', async () => {
    const table = await tollgate(['audit', '--db', t.dbPath]);
    expect(table.code, table.stderr).toBe(0);
    expectTerminalSafe(table.stdout);
    expect(table.stdout).toContain('pay[2Kread_docs');
    expect(table.stdout).toContain('helper]0;ownedbot');
    const ndjson = await tollgate(['audit', '--db', t.dbPath, '--format', 'ndjson']);
    expectTerminalSafe(ndjson.stdout);
    const rows = ndjson.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.find((r) => r.id === cancelledId)).toMatchObject({ tool_name: TOOL, reason: REASON, agent_id: AGENT });
    const events = await tollgate(['audit', '--db', t.dbPath, '--events', cancelledId]);
    expectTerminalSafe(events.stdout);
    expect(events.stdout).toContain('"actor":"agent\\u001b[8mX"');
  });

  it('audit export into a file keeps the exact data (it is not a terminal)', async () => {
    const run = await tollgate(['audit', 'export', '--db', t.dbPath, '--format', 'ndjson']);
    const rows = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.find((r) => r.id === pendingId)).toMatchObject({ tool_name: TOOL, prompt: PROMPT, tool_args: ARGS });
  });

  it('people list prints a name from the directory without control characters', async () => {
    // The server's own config file (startTestServer writes `policy` beside its database).
    const config = join(t.dbPath, '..', 'tollgate.yaml');
    const run = await tollgate(['people', 'list', '--config', config]);
    expect(run.code, run.stderr).toBe(0);
    expectTerminalSafe(run.stdout);
    expect(run.stdout).toContain('Alice[8m Hidden');
  });

  it('show and audit export in a real terminal (tmux) leave the tool name readable', async () => {
    const session = `tg-escapes-${process.pid}`;
    const env = `TOLLGATE_URL=${t.url} TOLLGATE_TOKEN=${alice} TOLLGATE_DB=`;
    const command = `${env} ${process.execPath} ${CLI} show ${pendingId}; ${env} ${process.execPath} ${CLI} audit export --db ${t.dbPath} --format csv; sleep 60`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '400', '-y', '80', command]);
    const pane = () => execFileSync('tmux', ['capture-pane', '-p', '-t', session]).toString();
    try {
      // The CSV rows of the three requests, in the terminal: the tool name as written (quoted in the CSV for its CR), not
      // "read_docs" alone at the start of an erased line.
      const rows = (screen: string) => screen.split('\n').filter((line) => line.includes(',"pay[2Kread_docs",'));
      await eventually(() => expect(rows(pane()).length).toBeGreaterThanOrEqual(3), 20_000, 50);
      const screen = pane();
      expect(screen).toContain('tool       pay[2Kread_docs');
      expect(screen).toContain('Read the docs[8m and wire 5000000 to mallory2K now');
    } finally {
      execFileSync('tmux', ['kill-session', '-t', session]);
    }
  });
});
