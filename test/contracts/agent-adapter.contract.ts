/**
 * The coding-agent adapter contract suite (`tollgate hook <agent>`). Every adapter runs it with a few lines: how its
 * agent asks to run a shell command (the hook input) and how its agent reads the answer (stdout and exit code):
 *
 * ```ts
 * runAgentAdapterContract({ kind: 'gemini', input: (command, cwd) => ({ … }), read: (answer) => ({ … }) });
 * ```
 *
 * The hook runs in process (`cli/agent-hook.ts`'s `run`, with its standard streams replaced) against a real gateway
 * (the HTTP stack on 127.0.0.1, SQLite or PostgreSQL), decided through the API.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/agent-hook.js';
import type { ApiRequest } from '../../src/requests/serialize.js';
import { ManualClock } from '../../src/utils/clock.js';
import { eventually } from '../helpers/eventually.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../helpers/server.js';

/** What the hook printed and exited with. */
export interface HookRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** What the agent does with the hook's answer, as the agent's documentation says it reads it. */
export interface AgentReading {
  decision: 'allow' | 'deny';
  /** What the model reads (a deny's reason; empty when the agent shows none). */
  reason: string;
  /** Arguments the agent runs instead (edited by an approver), when it takes them. */
  args?: Record<string, unknown>;
}

/** One agent under the contract. */
export interface AgentUnderTest {
  kind: string;
  /** The agent's hook input for a shell call of `command` in `cwd`. */
  input(command: string, cwd: string): Record<string, unknown>;
  /** How the agent reads an answer. */
  read(run: HookRun): AgentReading;
  /** The tool name the gateway records for a shell call. */
  toolName: string;
}

/** Where the contract's gateways keep their requests (SQLite when absent). */
export interface ContractDatabase {
  /** A fresh database URL, and how to drop it. */
  fresh(): Promise<{ url: string; drop(): Promise<void> }>;
}

/** Runs the hook with `stdin`; resolves with what it printed. */
export async function runHook(argv: string[], stdin: string, env: Record<string, string>): Promise<HookRun> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdin: (async function* () {
      yield Buffer.from(stdin);
    })(),
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env,
  });
  return { code, stdout, stderr };
}

/** The contract. */
export function runAgentAdapterContract(agent: AgentUnderTest, database?: ContractDatabase): void {
  describe(`tollgate hook ${agent.kind}${database ? ' (PostgreSQL)' : ''}`, { timeout: 60_000 }, () => {
    let server: TestServer | undefined;
    let drop: (() => Promise<void>) | undefined;
    let work: string;
    let cwd: string;

    beforeEach(() => {
      // A git checkout as an agent works in: origin acme/billing, branch main, the agent in a subdirectory.
      work = mkdtempSync(join(tmpdir(), `tollgate-agent-${agent.kind}-`));
      mkdirSync(join(work, '.git'));
      writeFileSync(join(work, '.git/HEAD'), 'ref: refs/heads/main\n');
      writeFileSync(
        join(work, '.git/config'),
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/billing.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n',
      );
      cwd = join(work, 'services');
      mkdirSync(cwd);
    });
    afterEach(async () => {
      await server?.close();
      server = undefined;
      await drop?.();
      drop = undefined;
      rmSync(work, { recursive: true, force: true });
    });

    async function start(options: TestServerOptions = {}): Promise<TestServer> {
      let dbPath: string | undefined;
      if (database) {
        const fresh = await database.fresh();
        dbPath = fresh.url;
        drop = fresh.drop;
      }
      server = await startTestServer({ ...options, ...(dbPath ? { dbPath } : {}) });
      return server;
    }
    const env = (s: TestServer) => ({ TOLLGATE_URL: s.url, TOLLGATE_TOKEN: s.token });
    const hook = (s: TestServer, command: string, flags: string[] = []) =>
      runHook([agent.kind, ...flags], JSON.stringify(agent.input(command, cwd)), env(s));
    const requests = async (s: TestServer, query = '') =>
      ((await (await s.api(`/v1/requests?limit=100${query}`)).json()) as { items: ApiRequest[] }).items;
    const pending = (s: TestServer, command: string) =>
      eventually(async () => {
        const found = (await requests(s, '&status=pending')).find((r) => r.tool_args.command === command);
        if (!found) throw new Error(`no pending request for ${command} yet`);
        return found;
      }, 20_000);
    const decide = async (s: TestServer, id: string, body: Record<string, unknown>) => {
      const response = await s.api(`/v1/requests/${id}/decision`, { body: { approver: 'web:alice', ...body } });
      expect(response.status).toBe(200);
    };
    const events = async (s: TestServer, id: string) =>
      (
        (await (await s.api(`/v1/requests/${id}/events`, { headers: { accept: 'application/json' } })).json()) as {
          items: { type: string }[];
        }
      ).items.map((e) => e.type);

    it('allows once a human approves, and records the agent, its repository and branch, and the receipt', async () => {
      const s = await start();
      const running = hook(s, 'terraform apply -auto-approve', ['--wait', '30']);
      const request = await pending(s, 'terraform apply -auto-approve');
      expect(request).toMatchObject({
        agent_kind: agent.kind,
        tool_name: agent.toolName,
        context: { cwd, repo: 'acme/billing', branch: 'main' },
      });
      await decide(s, request.id, { decision: 'approve', reason: 'change window' });
      expect(agent.read(await running)).toMatchObject({ decision: 'allow' });
      expect(await events(s, request.id)).toContain('executed');
      // The audit finds it by agent and by repository; another agent or repository finds nothing.
      expect((await requests(s, `&agent_kind=${agent.kind}&repo=acme/billing`)).map((r) => r.id)).toEqual([request.id]);
      expect(await requests(s, `&agent_kind=${agent.kind === 'codex' ? 'gemini' : 'codex'}`)).toEqual([]);
      expect(await requests(s, '&repo=acme/other')).toEqual([]);
    });

    it("denies with the approver's reason reaching the model", async () => {
      const s = await start();
      const running = hook(s, 'git push --force', ['--wait', '30']);
      const request = await pending(s, 'git push --force');
      await decide(s, request.id, { decision: 'deny', approver: 'web:bob', reason: 'not on the release branch' });
      const reading = agent.read(await running);
      expect(reading.decision).toBe('deny');
      expect(reading.reason).toContain('Denied by web:bob: not on the release branch');
    });

    it('denies when the request expires unanswered', async () => {
      // PostgreSQL judges the deadline by the database's clock: there the request expires in one real second.
      const clock = database ? null : new ManualClock(Date.now());
      const s = await start(clock ? { clock } : {});
      const running = hook(s, 'rm -rf build', ['--wait', '30', '--expires', clock ? '60' : '1']);
      if (clock) {
        await pending(s, 'rm -rf build');
        await clock.advance(60_000);
      }
      const reading = agent.read(await running);
      expect(reading).toMatchObject({
        decision: 'deny',
        reason: expect.stringMatching(/No approver answered in time/),
      });
    });

    it('fails closed when the gateway cannot be reached', async () => {
      const result = await runHook([agent.kind, '--wait', '1'], JSON.stringify(agent.input('ls', cwd)), {
        TOLLGATE_URL: 'http://127.0.0.1:9',
        TOLLGATE_TOKEN: 't',
      });
      expect(result.code).toBe(2);
      expect(agent.read(result)).toMatchObject({
        decision: 'deny',
        reason: expect.stringMatching(/cannot reach the gateway/),
      });
    });

    it('fails closed on a wrong token and on no token', async () => {
      const s = await start();
      const wrong = await runHook([agent.kind, '--wait', '5'], JSON.stringify(agent.input('ls', cwd)), {
        ...env(s),
        TOLLGATE_TOKEN: 'wrong',
      });
      expect(agent.read(wrong)).toMatchObject({
        decision: 'deny',
        reason: expect.stringMatching(/does not accept TOLLGATE_TOKEN/),
      });
      const none = await runHook([agent.kind], JSON.stringify(agent.input('ls', cwd)), { TOLLGATE_URL: s.url });
      expect(agent.read(none)).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/TOLLGATE_TOKEN/) });
      expect(await requests(s)).toEqual([]);
    });

    it('answers a policy decision at once, without a human', async () => {
      const s = await start({
        policy: `policies:\n  - name: read-only\n    match: { tool: "*", when: 'has(args.command) && args.command == "ls -la"' }\n    decision: allow\n    reason: read-only\n`,
      });
      const reading = agent.read(await hook(s, 'ls -la', ['--wait', '30']));
      expect(reading.decision).toBe('allow');
      const [request] = await requests(s);
      expect(request).toMatchObject({ status: 'approved', responded_by: 'policy:read-only', agent_kind: agent.kind });
    });

    it(
      'answers from a hostile checkout: a .git that never ends (HEAD is /dev/zero) neither stalls nor crashes the hook',
      { timeout: 20_000 },
      async () => {
        // A hook the agent kills for running too long lets the call run in most agents: reading .git must be bounded.
        rmSync(join(work, '.git/HEAD'));
        symlinkSync('/dev/zero', join(work, '.git/HEAD'));
        writeFileSync(join(work, '.git/config'), `[remote "origin"]\n\turl = ${'x'.repeat(200_000)}\n`);
        const s = await start({
          policy: `policies:\n  - name: read-only\n    match: { tool: "*", when: 'has(args.command) && args.command == "ls -la"' }\n    decision: allow\n`,
        });
        expect(agent.read(await hook(s, 'ls -la', ['--wait', '5'])).decision).toBe('allow');
        expect((await requests(s))[0]).toMatchObject({ context: { cwd, branch: null } });
      },
    );

    it('refuses a bad flag with a block the agent reads, and files nothing', async () => {
      const s = await start();
      // As `main` runs it, a usage error is exit 2 with the message on stderr (claude-hook's way); the other hooks
      // answer their agent's deny as well.
      const asMain = (argv: string[]) =>
        runHook(argv, JSON.stringify(agent.input('ls', cwd)), env(s)).catch((error: Error) => ({
          code: 2,
          stdout: '',
          stderr: error.message,
        }));
      for (const flags of [['--wait', 'soon'], ['--wait', '0'], ['extra']]) {
        const result = await asMain([agent.kind, ...flags]);
        expect({ flags, code: result.code }).toEqual({ flags, code: 2 });
        expect(agent.read(result)).toMatchObject({
          decision: 'deny',
          reason: expect.stringMatching(/--wait|--timeout|unexpected argument/),
        });
      }
      expect(await requests(s)).toEqual([]);
    });

    it('refuses malformed stdin, naming what is wrong, and files nothing', async () => {
      const s = await start();
      for (const [stdin, words] of [
        ['not json', /not valid JSON/],
        ['', /no hook input/],
        ['[1]', /expected (a JSON )?object/],
        ['{"unrelated": true}', /invalid hook input/],
      ] as const) {
        const result = await runHook([agent.kind], stdin, env(s));
        expect({ stdin, code: result.code }).toEqual({ stdin, code: 2 });
        expect(agent.read(result)).toMatchObject({ decision: 'deny', reason: expect.stringMatching(words) });
      }
      expect(await requests(s)).toEqual([]);
    });

    it('defers: the first attempt is refused with the link, a human approves, the same call runs once', async () => {
      const s = await start();
      const first = agent.read(await hook(s, 'terraform apply', ['--wait', '1']));
      expect(first.decision).toBe('deny');
      const [request] = await requests(s);
      expect(request).toMatchObject({ status: 'pending' });
      expect(first.reason).toContain(`${s.url}/ui/requests/${request!.id}`);
      expect(first.reason).toMatch(/run the same command again once it is approved/);
      await decide(s, request!.id, { decision: 'approve' });
      // The retry is allowed at once (no new request), and uses the approval up.
      expect(agent.read(await hook(s, 'terraform apply', ['--wait', '1'])).decision).toBe('allow');
      expect(await requests(s)).toHaveLength(1);
      expect(await events(s, request!.id)).toContain('executed');
      // Once used, the same call asks anew.
      const again = agent.read(await hook(s, 'terraform apply', ['--wait', '1']));
      expect(again).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/run the same command again/) });
      expect((await requests(s)).map((r) => r.status)).toEqual(['pending', 'approved']);
    });

    it("defers, then refuses the retry at once with the approver's reason once denied", async () => {
      const s = await start();
      expect(agent.read(await hook(s, 'git push --force', ['--wait', '1'])).decision).toBe('deny');
      // Asked again while pending: re-attaches (one request), still deferred.
      expect(agent.read(await hook(s, 'git push --force', ['--wait', '1'])).reason).toMatch(/Waiting for approval/);
      const [request] = await requests(s);
      expect(await requests(s)).toHaveLength(1);
      await decide(s, request!.id, { decision: 'deny', reason: 'never force-push' });
      const retry = agent.read(await hook(s, 'git push --force', ['--wait', '30']));
      expect(retry).toMatchObject({ decision: 'deny', reason: expect.stringContaining('never force-push') });
      expect(await requests(s)).toHaveLength(1);
    });
  });
}
