/**
 * What every real-CLI test in test/agents shares: a gateway per test (in process, SQLite), a temp home and project
 * directory, the agent wired by `tollgate init <agent>` as a user wires it (with the source checkout's bin, which runs
 * the hook from its bundle, rebuilt first when stale), a CLI run as a child process with only the environment it is
 * given, and deciding the request the agent's hook filed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run as tollgateInit } from '../../src/cli/init.js';
import type { ApiRequest } from '../../src/requests/serialize.js';
import { ensureHookBundle } from '../helpers/built-package.js';
import { eventually } from '../helpers/eventually.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const BIN = resolve(import.meta.dirname, '../../bin/tollgate.js');

/** What a run of a CLI printed. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The per-test gateway and directories. */
export interface AgentHarness {
  server(): TestServer;
  /** A fresh, empty home directory for the CLI. */
  home(): string;
  /** The project the agent works in. */
  project(): string;
  /**
   * `tollgate init <agent> --wait <wait> [flags]` in the project with HOME the test's home (plus `env`), as a user
   * wires the agent: what the agent runs is what init writes, its matchers and timeouts included.
   */
  init(agent: string, wait: number, flags?: string[], env?: Record<string, string>): Promise<void>;
  /** The environment the hook needs to reach the gateway. */
  gatewayEnv(): Record<string, string>;
  /** Runs `command args` in the project with `env` (plus PATH); stdin closed. */
  run(command: string, args: string[], env: Record<string, string>): Promise<CliRun>;
  /** The pending request the agent's hook filed (waits for it). */
  pending(agent: string): Promise<ApiRequest>;
  decide(id: string, body: Record<string, unknown>): Promise<void>;
}

/** Registers the per-test set-up and returns its accessors. */
export function agentHarness(name: string): AgentHarness {
  let server: TestServer;
  let dir: string;
  // The hook runs from the checkout's bundle, as a user's clone runs it after `npm install` (the bin refuses a stale one).
  beforeAll(ensureHookBundle, 120_000);
  beforeEach(async () => {
    server = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), `tollgate-${name}-`));
    mkdirSync(join(dir, 'home'));
    mkdirSync(join(dir, 'project'));
  });
  afterEach(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    server: () => server,
    home: () => join(dir, 'home'),
    project: () => join(dir, 'project'),
    async init(agent, wait, flags = [], env = {}) {
      const printed: string[] = [];
      const io = {
        stdout: { write: (text: string) => printed.push(text) },
        env: { HOME: join(dir, 'home'), ...env },
        cwd: join(dir, 'project'),
        bin: BIN,
      };
      expect(await tollgateInit([agent, '--wait', String(wait), ...flags], io), printed.join('')).toBe(0);
    },
    gatewayEnv: () => ({ TOLLGATE_URL: server.url, TOLLGATE_TOKEN: server.token }),
    run(command, args, env) {
      const child = spawn(command, args, {
        cwd: join(dir, 'project'),
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
    },
    // Up to a minute: the slowest CLI to its first tool call, OpenCode, took 3-7 s at load 9 and up to ~20 s at load
    // 15 on two cores (each file alone, 2026-11-28); found sooner, it returns at once.
    pending: (agent) =>
      eventually(
        async () => {
          const { items } = (await (await server.api(`/v1/requests?status=pending&agent_kind=${agent}`)).json()) as {
            items: ApiRequest[];
          };
          if (!items[0]) throw new Error('no pending request yet');
          return items[0];
        },
        60_000,
        100,
      ),
    async decide(id, body) {
      expect(
        (await server.api(`/v1/requests/${id}/decision`, { body: { approver: 'web:alice', ...body } })).status,
      ).toBe(200);
    },
  };
}

/** A fake model API a CLI talks to: it asks for one shell call and records what the model was told. */
export interface FakeModel {
  toolResults: string[];
  unknown: string[];
  close(): Promise<void>;
}

/** One real CLI under the shared suite. */
export interface RealCli<M extends FakeModel> {
  /** `tollgate hook <agent>`'s agent. */
  agent: string;
  /** `Gemini CLI 0.61.0`. */
  title: string;
  /** The tool name the gateway records for the shell call. */
  toolName: string;
  /** Starts the fake model API asking to run `command`. */
  startModel(command: string): Promise<M>;
  /** Writes the agent's configuration: the fake as its model, tollgate's hook with `--wait wait`. */
  configure(model: M, wait: number): void | Promise<void>;
  /** One headless run of the CLI. */
  run(model: M): Promise<CliRun>;
  /** What the agent does with a deny, beyond not running the command (default: the model reads the reason). */
  denied?(model: M, result: CliRun): void;
  /** Whether the agent runs arguments an approver edited (its hook can answer them): then that is tested too. */
  runsEditedArgs?: boolean;
}

/**
 * The three real-CLI tests every agent passes: approve → the command runs (and the request carries the call summary
 * the gateway computed from what the hook sent; test/contracts/agent-shapes.ts keeps those shapes); deny → it does
 * not (and, by default, the model reads the approver's reason); deferred → the first attempt is refused with the link
 * (read by the model by default), a human approves, the retry runs. An agent that runs edited arguments also runs
 * the approver's edit.
 */
export function realCliSuite<M extends FakeModel>(h: AgentHarness, cli: RealCli<M>, timeout: number): void {
  let model: M | undefined;
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });
  const ran = () => join(h.project(), 'ran.txt');
  const setUp = async (command: string, wait: number) => {
    model = await cli.startModel(command);
    await cli.configure(model, wait);
    return model;
  };

  describe(`${cli.title} behind tollgate hook ${cli.agent}`, { timeout }, () => {
    it('runs the command once a human approves it', async () => {
      const m = await setUp('echo approved > ran.txt', 30);
      const run = cli.run(m);
      const request = await h.pending(cli.agent);
      expect(request).toMatchObject({
        agent_kind: cli.agent,
        tool_name: cli.toolName,
        tool_args: { command: 'echo approved > ran.txt' },
        context: { cwd: h.project() },
      });
      // The call summary the gateway stored when the hook filed the call, read over the API as every channel reads it.
      expect(request.summary).toEqual({
        kind: 'shell',
        risk: 'low',
        risk_reasons: [],
        commands: [{ program: 'echo', args: ['approved'], flags: [] }],
        truncated: false,
      });
      await h.decide(request.id, { decision: 'approve' });
      expect((await run).code).toBe(0);
      expect(m.unknown).toEqual([]);
      expect(readFileSync(ran(), 'utf8').trim()).toBe('approved');
    });

    it('does not run a denied command', async () => {
      const m = await setUp('echo denied > ran.txt', 30);
      const run = cli.run(m);
      await h.decide((await h.pending(cli.agent)).id, {
        decision: 'deny',
        approver: 'web:bob',
        reason: 'not on the release branch',
      });
      const result = await run;
      expect(existsSync(ran())).toBe(false);
      if (cli.denied) cli.denied(m, result);
      else expect(m.toolResults.join('\n')).toContain('Denied by web:bob: not on the release branch');
    });

    if (cli.runsEditedArgs) {
      it('runs the arguments an approver edited instead of the asked ones', async () => {
        const m = await setUp('echo asked > ran.txt', 30);
        const run = cli.run(m);
        await h.decide((await h.pending(cli.agent)).id, {
          decision: 'approve',
          approved_args: { command: 'echo edited > ran.txt' },
        });
        expect((await run).code).toBe(0);
        expect(readFileSync(ran(), 'utf8').trim()).toBe('edited');
      });
    }

    it('defers: the first attempt is refused with the link, a human approves, the retry runs', async () => {
      // 3 s, not 1: the hook's --wait also bounds its own start and its request to the gateway; on two loaded cores
      // (load 15) 1 s was once too short for OpenCode's hook ("cannot reach the gateway …: timed out").
      const m = await setUp('echo later > ran.txt', 3);
      await cli.run(m);
      expect(existsSync(ran())).toBe(false);
      const request = await h.pending(cli.agent);
      if (!cli.denied) expect(m.toolResults.join('\n')).toContain(`/ui/requests/${request.id}`);
      await h.decide(request.id, { decision: 'approve' });
      await cli.run(m);
      expect(readFileSync(ran(), 'utf8').trim()).toBe('later');
    });
  });
}
