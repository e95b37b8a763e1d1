// The webhook hook against a real HTTP server on 127.0.0.1, speaking PulseBot's verdict protocol. 127.0.0.1 is a
// loopback address, which the one outbound check refuses: the suite allows it (TOLLGATE_OUTBOUND_ALLOW), as an
// operator whose webhook runs on the same host would.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HookConfigError, HookRegistry, ToolExecutor, loadHookConfig, webhookHook } from '../../../src/hooks/index.js';
import { memoryLogger } from '../../unit/hooks/helpers.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

type Reply = (body: Record<string, unknown>, res: ServerResponse) => void;

let server: Server | undefined;

async function startHookServer(reply: Reply): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      received.push({ headers: req.headers, body });
      reply(body, res);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

const json = (res: ServerResponse, body: unknown, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

function setup(url: string, config: Record<string, unknown> = {}, allow = '127.0.0.1') {
  const logger = memoryLogger();
  const registry = new HookRegistry({ logger });
  loadHookConfig(
    { hooks: { 'tool:pre': [{ use: 'webhook', config: { url, ...config } }] } },
    { registry, env: { HOOK_TOKEN: 's3cret', TOLLGATE_OUTBOUND_ALLOW: allow } },
  );
  const ran: Record<string, unknown>[] = [];
  const executor = new ToolExecutor({
    registry,
    tools: {
      run_command: (args) => {
        ran.push(args);
        return `ran ${String(args.command)}`;
      },
      explode: () => {
        throw new Error('kaput');
      },
    },
  });
  return { executor, ran, logger };
}

describe('webhook hook', () => {
  it('posts {tool_name, arguments, session_id} with the auth header and follows approve', async () => {
    const { url, received } = await startHookServer((body, res) => json(res, body.event ? {} : { verdict: 'approve' }));
    const { executor, ran } = setup(url, { auth_header: 'Bearer ${HOOK_TOKEN}' });
    const out = await executor.execute('run_command', { command: 'ls -la' }, { sessionId: 'abc123' });
    expect(out).toMatchObject({ status: 'ok', result: 'ran ls -la' });
    expect(ran).toEqual([{ command: 'ls -la' }]);
    expect(received[0]?.body).toEqual({
      tool_name: 'run_command',
      arguments: { command: 'ls -la' },
      session_id: 'abc123',
    });
    expect(received[0]?.headers.authorization).toBe('Bearer s3cret');
    // post_call notification after the tool ran
    expect(received[1]?.body).toEqual({
      event: 'post_call',
      tool_name: 'run_command',
      arguments: { command: 'ls -la' },
      session_id: 'abc123',
      result: { success: true, output: 'ran ls -la' },
    });
  });

  it('deny blocks with the reasoning; modify replaces the arguments', async () => {
    const { url } = await startHookServer((body, res) => {
      if (body.event) return json(res, {});
      const args = body.arguments as { command: string };
      if (args.command.includes('sudo')) return json(res, { verdict: 'deny', reasoning: 'sudo not allowed' });
      return json(res, {
        verdict: 'modify',
        reasoning: 'sandboxed',
        modified_arguments: { command: `firejail ${args.command}` },
      });
    });
    const { executor, ran } = setup(url);
    const denied = await executor.execute('run_command', { command: 'sudo reboot' });
    expect(denied.status === 'blocked' && denied.reason).toContain('sudo not allowed');
    expect(await executor.execute('run_command', { command: 'ls' })).toMatchObject({
      status: 'ok',
      result: 'ran firejail ls',
    });
    expect(ran).toEqual([{ command: 'firejail ls' }]);
  });

  it('sends post_call notifications for failures too, and their errors change nothing', async () => {
    const { url, received } = await startHookServer((body, res) =>
      body.event ? json(res, { oops: true }, 500) : json(res, { verdict: 'approve' }),
    );
    const { executor, logger } = setup(url);
    const out = await executor.execute('explode', {});
    expect(out.status).toBe('error');
    expect(received[1]?.body).toMatchObject({
      event: 'post_call',
      tool_name: 'explode',
      result: { success: false, error: 'kaput' },
    });
    expect(logger.lines.some((l) => l.message === 'webhook post_call notification failed')).toBe(true);
  });

  it('fail_open (default) lets the call through when the webhook is down or answers garbage', async () => {
    const { url } = await startHookServer((_body, res) => json(res, { verdict: 'maybe' }));
    const { executor } = setup(url, { post_call: false });
    const out = await executor.execute('run_command', { command: 'ls' });
    expect(out.status).toBe('ok');
    expect(out.status === 'ok' && out.sideEffects[0]).toContain('allowed because fail_open is on');
  });

  it('fail_open: false denies on timeout and on HTTP errors', async () => {
    const { url } = await startHookServer((body, res) => {
      if ((body.arguments as { command: string }).command === 'slow') return; // never answers
      json(res, { error: 'boom' }, 503);
    });
    const { executor, ran } = setup(url, { fail_open: false, timeout: 0.2, post_call: false });
    const slow = await executor.execute('run_command', { command: 'slow' });
    expect(slow.status === 'blocked' && slow.reason).toContain(
      'the approval webhook could not be consulted (timed out)',
    );
    const broken = await executor.execute('run_command', { command: 'x' });
    expect(broken.status === 'blocked' && broken.reason).toContain('HTTP 503');
    expect(ran).toEqual([]);
  });

  it('fail_open: false denies when nothing listens', async () => {
    const { url } = await startHookServer((_b, res) => json(res, {}));
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    const { executor } = setup(url, { fail_open: false, post_call: false });
    const out = await executor.execute('run_command', { command: 'ls' });
    expect(out.status === 'blocked' && out.reason).toContain('ECONNREFUSED');
  });

  it('refuses a loopback, private or metadata address unless TOLLGATE_OUTBOUND_ALLOW lists it', async () => {
    const { url, received } = await startHookServer((_b, res) => json(res, { verdict: 'approve' }));
    for (const target of [url, 'http://169.254.169.254/latest', 'http://10.1.2.3/hook', 'http://[::ffff:7f00:1]/x'])
      expect(() => setup(target, {}, ''), target).toThrow(
        /hooks\.tool:pre\[0\]\.config: url: .* (loopback|private).*allow it with TOLLGATE_OUTBOUND_ALLOW/,
      );
    expect(() => webhookHook({ url: 'http://192.168.1.9/hook' }, memoryLogger(), [])).toThrow(HookConfigError);
    // Allowed by host or by range, it is called.
    for (const allow of ['127.0.0.1', '127.0.0.0/8']) {
      const { executor } = setup(url, { post_call: false }, allow);
      expect(await executor.execute('run_command', { command: 'ls' })).toMatchObject({ status: 'ok' });
    }
    expect(received).toHaveLength(2);
  });
});
