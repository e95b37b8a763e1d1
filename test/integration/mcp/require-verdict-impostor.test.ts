/**
 * `tollgate mcp --require-verdict` against a gateway impostor (issue 49, finding 2): something answering in the
 * gateway's place hands the proxy a *genuine* verdict — signed by the real gateway's key, which the proxy trusts
 * through `--jwks-url` — that was given for another tool, another request or other arguments. The proxy checks the
 * token against the call it is about to make (the `mcp__files__<tool>` it filed, the request id the gateway gave it
 * when filing, the arguments it will pass upstream), so each is refused and the upstream tool never runs. The
 * control: the same impostor relaying the real gateway's verdict for the very call runs it.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { genuineVerdict, startImpostorGateway, type ImpostorGateway } from '../../helpers/impostor-gateway.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { mcpCommand } from './helpers.js';

let t: TestServer;
let impostor: ImpostorGateway;
let client: Client;
let dir: string;
let log: string;

/** The calls the upstream ran. */
function upstreamCalls(): unknown[] {
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);
}

/** A pending answer to the proxy's filing, under an id the impostor picks. */
function pendingAnswer(body: Record<string, unknown>, id: string): Partial<ApiRequest> {
  return {
    id,
    status: 'pending',
    tool_name: body.tool_name as string,
    tool_args: body.tool_args as Record<string, unknown>,
    approved_args: null,
    allowed: null,
    verdict_token: null,
  };
}

beforeAll(async () => {
  t = await startTestServer();
  impostor = await startImpostorGateway();
  dir = mkdtempSync(join(tmpdir(), 'tollgate-mcp-impostor-'));
  log = join(dir, 'calls.ndjson');
  client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      // The operator pins the real gateway's keys: the impostor can relay genuine tokens, not sign its own.
      args: await mcpCommand([
        '--name',
        'files',
        '--approver',
        'web:alice',
        '--require-verdict',
        '--jwks-url',
        `${t.url}/.well-known/jwks.json`,
      ]),
      env: { ...process.env, TOLLGATE_URL: impostor.url, TOLLGATE_TOKEN: 'fake', FAKE_MCP_LOG: log } as Record<
        string,
        string
      >,
      stderr: 'inherit',
    }),
  );
}, 30_000);

afterAll(async () => {
  await client?.close();
  await impostor?.close();
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  writeFileSync(log, '');
  impostor.onCreate = impostor.onGet = null;
});

const call = (name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

describe('tollgate mcp --require-verdict against a gateway impostor', () => {
  it('refuses a genuine verdict for another tool (read_file approved with approved_args) and never runs delete_file', async () => {
    const readApproved = await genuineVerdict(
      t,
      'mcp__files__read_file',
      { path: '/tmp/notes' },
      { path: '/tmp/notes/all' },
    );
    impostor.onCreate = () => readApproved;
    const result = await call('delete_file', { path: '/tmp/notes' });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          /^tollgate: no valid verdict for request .*wrong_tool: the verdict is for mcp__files__read_file, not mcp__files__delete_file/,
        ),
      },
    ]);
    expect(upstreamCalls()).toEqual([]);
  }, 30_000);

  it('refuses a genuine verdict for the same call filed as another request, and never runs it', async () => {
    const earlier = await genuineVerdict(t, 'mcp__files__delete_file', { path: '/tmp/x' });
    const filedId = randomUUID();
    impostor.onCreate = (body) => pendingAnswer(body, filedId);
    // The long-poll on the request the proxy filed answers with another request's verdict.
    impostor.onGet = (id) => (id === filedId ? earlier : null);
    const result = await call('delete_file', { path: '/tmp/x' });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          new RegExp(
            `^tollgate: no valid verdict for request ${filedId}: wrong_request: the verdict is for request ${earlier.id}`,
          ),
        ),
      },
    ]);
    expect(upstreamCalls()).toEqual([]);
  }, 30_000);

  it('refuses a genuine verdict for other arguments, whether the answer keeps or drops its approved_args', async () => {
    // Passed with the arguments the answer claims were approved, or with the caller's own: neither is what was signed.
    for (const approved_args of [{ path: '/tmp/all' }, null]) {
      const narrow = await genuineVerdict(t, 'mcp__files__delete_file', { path: '/tmp/all' }, { path: '/tmp/one' });
      impostor.onCreate = () => ({ ...narrow, approved_args });
      const result = await call('delete_file', { path: '/tmp/all' });
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([
        { type: 'text', text: expect.stringMatching(/^tollgate: no valid verdict for request .*args_mismatch/) },
      ]);
    }
    expect(upstreamCalls()).toEqual([]);
  }, 30_000);

  it('refuses an answer that renames the tool to match a verdict for another one', async () => {
    const readApproved = await genuineVerdict(t, 'mcp__files__read_file', { path: '/tmp/notes' });
    impostor.onCreate = () => ({ ...readApproved, tool_name: 'mcp__files__delete_file' });
    const result = await call('delete_file', { path: '/tmp/notes' });
    expect(result.isError).toBe(true);
    expect(upstreamCalls()).toEqual([]);
  }, 30_000);

  it('runs the call when the impostor only relays the real gateway verdict for it (the control)', async () => {
    impostor.onCreate = (body) =>
      genuineVerdict(t, body.tool_name as string, body.tool_args as Record<string, unknown>, { path: '/tmp/narrowed' });
    const result = await call('delete_file', { path: '/tmp/wide' });
    expect(result.content).toEqual([{ type: 'text', text: 'deleted {"path":"/tmp/narrowed"}' }]);
    expect(upstreamCalls()).toEqual([{ tool: 'delete_file', args: { path: '/tmp/narrowed' } }]);
  }, 30_000);
});
