/**
 * Set-up for the `tollgate mcp` tests: the real SDK client spawns the proxy (the CLI) with the real SDK fake upstream
 * behind it (stdio, unless the args name `--upstream-url`), against an in-process gateway.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'vitest';
import { compiled, compiledCli } from '../../helpers/compiled-cli.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import type { Clock } from '../../../src/utils/clock.js';
import type { ApiRequest } from '../../../src/requests/serialize.js';

/**
 * `tollgate mcp <args>` as the arguments of `node`, with the stdio fake upstream as its command unless `args` name
 * `--upstream-url`. Both are the sources compiled file by file ({@link compiledCli}): through tsx each start would
 * cost about 2 s more CPU, and these files start dozens; test/integration/cli/ runs bin/tollgate.js itself.
 */
export async function mcpCommand(args: string[]): Promise<string[]> {
  const upstream = args.includes('--upstream-url')
    ? []
    : ['--', process.execPath, await compiled('test/fakes/mcp/upstream.ts')];
  return [await compiledCli(), 'mcp', ...args, ...upstream];
}

/** A running proxy with its gateway and the fake upstream's call log. */
export interface ProxyFixture {
  t: TestServer;
  client: Client;
  /** The file the fake upstream appends its calls to. */
  log: string;
  /** The upstream's recorded calls. */
  calls(): { tool: string; args: Record<string, unknown> }[];
  /** Waits for exactly one pending request and returns it. */
  pendingRequest(): Promise<ApiRequest>;
  allRequests(): Promise<ApiRequest[]>;
  events(id: string): Promise<{ type: string; actor: string | null; detail: Record<string, unknown> }[]>;
  decide(
    id: string,
    body: { decision: 'approve' | 'deny'; reason?: string; approved_args?: Record<string, unknown> },
  ): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a gateway and `tollgate mcp --name files --approver web:alice <proxyArgs>`; without `--upstream-url` in
 * `proxyArgs`, the stdio fake upstream is the command after `--`.
 */
export async function startProxy(
  options: { proxyArgs?: string[]; client?: Client; logFile?: string; clock?: Clock } = {},
): Promise<ProxyFixture> {
  const t = await startTestServer({ clock: options.clock });
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-mcp-'));
  const log = options.logFile ?? join(dir, 'calls.ndjson');
  const proxyArgs = options.proxyArgs ?? [];
  const client = options.client ?? new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: await mcpCommand(['--name', 'files', '--approver', 'web:alice', ...proxyArgs]),
      env: { ...process.env, TOLLGATE_URL: t.url, TOLLGATE_TOKEN: t.token, FAKE_MCP_LOG: log } as Record<
        string,
        string
      >,
      stderr: 'inherit',
    }),
  );
  const json = async <T>(path: string): Promise<T> =>
    (await (await t.api(path, { headers: { accept: 'application/json' } })).json()) as T;
  return {
    t,
    client,
    log,
    calls() {
      try {
        return readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
      } catch {
        return [];
      }
    },
    pendingRequest: () =>
      eventually(async () => {
        const { items } = await json<{ items: ApiRequest[] }>('/v1/requests?status=pending');
        expect(items).toHaveLength(1);
        return items[0]!;
      }, 10_000),
    allRequests: async () => (await json<{ items: ApiRequest[] }>('/v1/requests')).items,
    events: async (id) =>
      (
        await json<{ items: { type: string; actor: string | null; detail: Record<string, unknown> }[] }>(
          `/v1/requests/${id}/events`,
        )
      ).items,
    async decide(id, body) {
      const response = await t.api(`/v1/requests/${id}/decision`, { body: { approver: 'web:alice', ...body } });
      expect(response.status).toBe(200);
    },
    async close() {
      await client.close();
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
