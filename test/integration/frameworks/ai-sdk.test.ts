// tollgate/ai-sdk against a running gateway, with ai 6's MockLanguageModelV3 (offline): approve, deny with a reason
// the model sees, and a restarted process re-attaching to the same request by the call id.
import { generateText, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GateClient } from '../../../src/client/index.js';
import { approvalResponses } from '../../../src/frameworks/ai-sdk/index.js';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { decide, pendingFor } from './gateway-steps.js';

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that first calls deploy, then answers with whatever the deploy tool result said. */
function scriptedModel(callId: string) {
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const last = options.prompt.at(-1);
      if (last?.role === 'tool') {
        return {
          content: [{ type: 'text', text: `model saw: ${JSON.stringify(last.content)}` }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      }
      return {
        content: [
          { type: 'tool-call', toolCallId: callId, toolName: 'deploy', input: JSON.stringify({ env: 'prod' }) },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

function setup(callId: string) {
  const ran: unknown[] = [];
  const tools = {
    deploy: tool({
      inputSchema: z.object({ env: z.string() }),
      needsApproval: true,
      execute: async (args: { env: string }) => {
        ran.push(args);
        return `deployed ${args.env}`;
      },
    }),
  };
  const model = scriptedModel(callId);
  return { ran, tools, model };
}

async function firstTurn(callId: string) {
  const { ran, tools, model } = setup(callId);
  const messages: ModelMessage[] = [{ role: 'user', content: 'deploy to prod' }];
  const result = await generateText({ model, tools, messages });
  messages.push(...result.response.messages);
  return { ran, tools, model, messages, result };
}

describe('tollgate/ai-sdk', () => {
  it('approved: the tool runs on the next call', async () => {
    const { ran, tools, model, messages, result } = await firstTurn('call_a1');
    const answering = approvalResponses(result.content, { url: server.url, token: server.token });
    const req = await pendingFor(server, 'call_a1');
    expect(req).toMatchObject({ tool_name: 'deploy', tool_args: { env: 'prod' }, idempotency_key: 'ai-sdk:call_a1' });
    await decide(server, req.id, { decision: 'approve', approver: 'web:alice' });
    const answers = await answering;
    expect(answers[0]?.content[0]).toMatchObject({ type: 'tool-approval-response', approved: true });
    messages.push(...answers);
    const next = await generateText({ model, tools, messages });
    expect(ran).toEqual([{ env: 'prod' }]);
    expect(next.text).toContain('deployed prod');
  });

  it('denied with a reason: the tool does not run and the model sees the reason', async () => {
    const { ran, tools, model, messages, result } = await firstTurn('call_d1');
    const answering = approvalResponses(result.content, {
      client: new GateClient({ url: server.url, token: server.token }),
    });
    await decide(server, (await pendingFor(server, 'call_d1')).id, {
      decision: 'deny',
      approver: 'web:bob',
      reason: 'change freeze until Monday',
    });
    messages.push(...(await answering));
    const next = await generateText({ model, tools, messages });
    expect(ran).toEqual([]);
    const prompt = JSON.stringify(model.doGenerateCalls.at(-1)?.prompt);
    expect(prompt).toContain('change freeze until Monday');
    expect(next.text).toContain('change freeze until Monday');
  });

  it('a restarted process asking again re-attaches to the same request', async () => {
    const { result } = await firstTurn('call_r1');
    const abort = new AbortController();
    const first = approvalResponses(result.content, { url: server.url, token: server.token, signal: abort.signal });
    const req = await pendingFor(server, 'call_r1');
    abort.abort(); // the first process dies mid-wait
    await expect(first).rejects.toThrow();
    const second = approvalResponses(result.content, { url: server.url, token: server.token });
    await decide(server, req.id, { decision: 'approve', approver: 'web:alice' });
    expect((await second)[0]?.content[0]).toMatchObject({ approved: true });
    const all = (await (await server.api('/v1/requests')).json()) as { items: ApiRequest[] };
    expect(all.items.filter((r) => r.tool_call_id === 'call_r1')).toHaveLength(1);
  });
});
