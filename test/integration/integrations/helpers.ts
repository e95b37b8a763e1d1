/**
 * Helpers for the runtime-integration tests: gateways as child processes on a fixed port (so a restarted one is
 * found at the same address), the CLI as a child process, and decisions through the API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.js';
import { compiledCliSync } from '../../helpers/compiled-cli.js';
import { eventually } from '../../helpers/eventually.js';
import type { ApiRequest } from '../../../src/requests/serialize.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A port nobody listens on right now (picked by the OS, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** `tollgate serve` (the real CLI, with the integrations plugin the composition root mounts) on a fixed port. */
export function startServe(dbPath: string, port: number): Promise<ChildGateway> {
  return startChildGateway(dbPath, {}, ['--port', String(port)]);
}

/**
 * Registers per-test set-up: a temp database file, and `gateway()` starting `tollgate serve` on it (again after a
 * restart: same file, same address). The first start listens on a port the OS picks and the restarts take that one
 * again: a port picked free and released beforehand was taken by another test's process now and then before the
 * gateway bound it (EADDRINUSE on a fresh machine). Every gateway is SIGKILLed and the files removed after each test.
 */
export function childGatewaysPerTest(name: string): { gateway(): Promise<ChildGateway> } {
  let dir = '';
  let port = 0;
  const children: ChildGateway[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), `tollgate-${name}-`));
    port = 0;
  });
  afterEach(async () => {
    for (const child of children.splice(0)) await child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    async gateway() {
      const child = await startServe(join(dir, 'tollgate.db'), port);
      children.push(child);
      port = Number(new URL(child.url).port);
      return child;
    },
  };
}

/** What a finished command printed. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command running in the background. */
export interface RunningCli {
  process: ChildProcess;
  done: Promise<CliResult>;
}

/**
 * Starts the CLI (`tollgate <args>`) with `stdin` written and closed. It runs the sources compiled file by file
 * ({@link compiledCliSync}: the code bin/tollgate.js loads through tsx, at less than half tsx's start-up CPU, which
 * these files pay dozens of times), not the checkout's hook bundle: these tests are about what the hook does;
 * `claude-hook-bundle.test.ts` holds the bundle to the same answers, test/integration/cli/ runs bin/tollgate.js
 * itself, and test/agents runs the bundle as users do.
 */
export function spawnCli(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): RunningCli {
  return spawnProcess(process.execPath, [compiledCliSync(), ...args], {
    ...options,
    env: { TOLLGATE_CLI: '1', ...options.env },
  });
}

/** Starts any program (python3) the same way. */
export function spawnProcess(
  command: string,
  args: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): RunningCli {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(options.stdin ?? '');
  const done = new Promise<CliResult>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return { process: child, done };
}

/** Runs a command to completion. */
export function runCli(
  args: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return spawnCli(args, options).done;
}

/** The environment a client command needs to reach `gateway`. */
export function clientEnv(gateway: { url: string; token: string }): Record<string, string> {
  return { TOLLGATE_URL: gateway.url, TOLLGATE_TOKEN: gateway.token };
}

/** Reads a JSON response body. */
export async function body<T = ApiRequest>(response: Promise<Response> | Response): Promise<T> {
  return (await (await response).json()) as T;
}

/** Waits until a pending request matching `match` exists, and returns it. */
export async function pendingRequest(gateway: ChildGateway, match: (r: ApiRequest) => boolean): Promise<ApiRequest> {
  return eventually(
    async () => {
      const { items } = await body<{ items: ApiRequest[] }>(gateway.api('/v1/requests?status=pending&limit=100'));
      const found = items.find(match);
      if (!found) throw new Error('no matching pending request yet');
      return found;
    },
    60_000,
    50,
  );
}

/** Decides a request through the API, expecting success. */
export async function decide(
  gateway: ChildGateway,
  id: string,
  decision: {
    decision: 'approve' | 'deny';
    approver?: string;
    reason?: string;
    approved_args?: Record<string, unknown>;
  },
): Promise<ApiRequest> {
  const response = await gateway.api(`/v1/requests/${id}/decision`, { body: { approver: 'web:alice', ...decision } });
  if (response.status !== 200) throw new Error(`decision failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as ApiRequest;
}

/** Every request of the gateway (newest first). */
export async function allRequests(gateway: ChildGateway): Promise<ApiRequest[]> {
  return (await body<{ items: ApiRequest[] }>(gateway.api('/v1/requests?limit=500'))).items;
}

/** The audit events of a request. */
export async function eventsOf(
  gateway: ChildGateway,
  id: string,
): Promise<{ type: string; actor: string | null; detail: Record<string, unknown> }[]> {
  const response = await fetch(`${gateway.url}/v1/requests/${id}/events`, {
    headers: { authorization: `Bearer ${gateway.token}`, accept: 'application/json' },
  });
  return (await body<{ items: { type: string; actor: string | null; detail: Record<string, unknown> }[] }>(response))
    .items;
}
