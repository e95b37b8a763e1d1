// tollgate/openai-agents against a running gateway, with a scripted Model (offline, tracing off): approve, reject with
// a reason the model sees, approve with edited args, and a fresh process resuming from the state kept in the request.
import {
  Agent,
  Usage,
  run,
  setTracingDisabled,
  tool,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from '@openai/agents';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decideInterruptions, restoreRunState, runWithApprovals } from '../../../src/frameworks/openai-agents/index.js';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { decide, pendingFor } from './gateway-steps.js';

let server: TestServer;
beforeAll(() => setTracingDisabled(true));
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

/** Calls deploy once, then answers with the tool output it was given. Records every input. */
class ScriptedModel implements Model {
  seen: ModelRequest['input'][] = [];
  constructor(private readonly callId: string) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.seen.push(request.input);
    const input = Array.isArray(request.input) ? request.input : [];
    const output = input.find((i) => i.type === 'function_call_result');
    if (output) {
      return {
        usage: new Usage(),
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: `model saw: ${JSON.stringify(output)}` }],
          },
        ],
      };
    }
    return {
      usage: new Usage(),
      output: [
        {
          type: 'function_call',
          callId: this.callId,
          name: 'deploy',
          arguments: JSON.stringify({ env: 'prod' }),
          status: 'completed',
        },
      ],
    };
  }
  // eslint-disable-next-line require-yield -- the tests never stream
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not used');
  }
}

function setup(callId: string) {
  const ran: unknown[] = [];
  const deploy = tool({
    name: 'deploy',
    description: 'Deploy',
    parameters: z.object({ env: z.string() }),
    needsApproval: true,
    execute: async ({ env }) => {
      ran.push({ env });
      return `deployed ${env}`;
    },
  });
  const model = new ScriptedModel(callId);
  const agent = new Agent({ name: 'release-bot', model, tools: [deploy] });
  return { ran, model, agent };
}

describe('tollgate/openai-agents runWithApprovals', () => {
  it('approved: the tool runs and the run completes', async () => {
    const { ran, agent } = setup('call_1');
    const running = runWithApprovals(agent, 'deploy to prod', { url: server.url, token: server.token, timeoutS: 600 });
    const req = await pendingFor(server, 'call_1');
    expect(req).toMatchObject({
      tool_name: 'deploy',
      tool_args: { env: 'prod' },
      idempotency_key: 'openai-agents:call_1',
    });
    await decide(server, req.id, { decision: 'approve', approver: 'web:alice' });
    const result = await running;
    expect(ran).toEqual([{ env: 'prod' }]);
    expect(String(result.finalOutput)).toContain('deployed prod');
  });

  it('rejected with a reason: the tool does not run and the model sees the reason', async () => {
    const { ran, model, agent } = setup('call_2');
    const running = runWithApprovals(agent, 'deploy to prod', { url: server.url, token: server.token });
    await decide(server, (await pendingFor(server, 'call_2')).id, {
      decision: 'deny',
      approver: 'web:bob',
      reason: 'change freeze until Monday',
    });
    await running;
    expect(ran).toEqual([]);
    expect(JSON.stringify(model.seen.at(-1))).toContain('change freeze until Monday');
  });

  it('approved with edited args: the original call does not run and the model is told the approved args', async () => {
    // The SDK refuses to run a call whose arguments changed after approval, so the edit reaches the model instead.
    const { ran, model, agent } = setup('call_3');
    const running = runWithApprovals(agent, 'deploy to prod', { url: server.url, token: server.token });
    await decide(server, (await pendingFor(server, 'call_3')).id, {
      decision: 'approve',
      approver: 'web:alice',
      approved_args: { env: 'staging' },
    });
    await running;
    expect(ran).toEqual([]);
    expect(JSON.stringify(model.seen.at(-1))).toContain('{\\"env\\":\\"staging\\"}');
  });
});

describe('tollgate/openai-agents after a restart', () => {
  it('a fresh process rebuilds the run from the request and re-attaches to it', async () => {
    // process 1: runs until the approval, files the request, dies mid-wait
    const first = setup('call_4');
    const paused = await run(first.agent, 'deploy to prod');
    const abort = new AbortController();
    const dying = decideInterruptions(paused.state, paused.interruptions, {
      url: server.url,
      token: server.token,
      signal: abort.signal,
    });
    const req = await pendingFor(server, 'call_4');
    abort.abort();
    await expect(dying).rejects.toThrow();

    // process 2: only knows the request id
    const second = setup('call_4');
    const state = await restoreRunState(second.agent, req.id, { url: server.url, token: server.token });
    const deciding = decideInterruptions(state, state.getInterruptions(), { url: server.url, token: server.token });
    await decide(server, req.id, { decision: 'approve', approver: 'web:alice' });
    await deciding;
    const result = await run(second.agent, state);
    expect(first.ran).toEqual([]);
    expect(second.ran).toEqual([{ env: 'prod' }]);
    expect(String(result.finalOutput)).toContain('deployed prod');
    const all = (await (await server.api('/v1/requests')).json()) as { items: ApiRequest[] };
    expect(all.items).toHaveLength(1);
  });
});
