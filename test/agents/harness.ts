/**
 * What every real-CLI test in test/agents shares: a gateway per test (in process, SQLite), a temp home and project
 * directory, the hook command as docs/coding-agents.md configures it (the source checkout's bin), a CLI run as a child
 * process with only the environment it is given, and deciding the request the agent's hook filed.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import type { ApiRequest } from '../../src/requests/serialize.js';
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
  /** `tollgate hook <agent> …` as a shell command line (what the agent's hook config runs). */
  hookCommand(agent: string, wait: number): string;
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
    hookCommand: (agent, wait) => `"${process.execPath}" "${BIN}" hook ${agent} --wait ${wait}`,
    gatewayEnv: () => ({ TOLLGATE_URL: server.url, TOLLGATE_TOKEN: server.token }),
    run(command, args, env) {
      const child = spawn(command, args, { cwd: join(dir, 'project'), env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
    },
    pending: (agent) =>
      eventually(async () => {
        const { items } = (await (await server.api(`/v1/requests?status=pending&agent_kind=${agent}`)).json()) as { items: ApiRequest[] };
        if (!items[0]) throw new Error('no pending request yet');
        return items[0];
      }, 90_000, 100),
    async decide(id, body) {
      expect((await server.api(`/v1/requests/${id}/decision`, { body: { approver: 'web:alice', ...body } })).status).toBe(200);
    },
  };
}
