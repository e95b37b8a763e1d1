/**
 * `/ui/stream`: open pages hear about every filed or changed request (ids and statuses only), and stopping the
 * channel ends the streams so shutdown is not held up.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel, type WebChannel } from '../../../channels/web/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { WebClient } from './web-client.js';

describe('web change stream', () => {
  let channel: WebChannel;
  let server: TestServer;
  let client: WebClient;

  beforeEach(async () => {
    channel = createWebChannel();
    server = await startTestServer({ channels: [channel] });
    client = new WebClient(server.url);
    await client.request((await channel.loginUrl(server.url))!);
  });

  afterEach(async () => {
    await server.close();
  });

  it('tells signed-in pages when a request is filed and when it is decided, then ends on stop', async () => {
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(`${server.url}/ui/stream`, { headers: { cookie } });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let received = '';
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(received)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${pattern}: ${received}`);
        received += value;
      }
    };
    await readUntil(/: connected/);
    const { request } = await server.gateway.request({
      toolName: 'rotate_keys',
      toolArgs: { secret_material: 'never-on-the-stream' },
    });
    await readUntil(/"kind":"created"/);
    expect(received).toContain(`event: change\ndata: {"id":"${request.id}","status":"pending","kind":"created"}`);
    await server.gateway.decide({ requestId: request.id, decision: 'deny', actor: { channel: 'api', userId: 'ops' } });
    await readUntil(/"status":"denied"/);
    expect(received).not.toContain('never-on-the-stream');
    expect(received).not.toContain('rotate_keys');

    await channel.stop();
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  });
});
