/**
 * The framework adapters' `requireVerdict` against a gateway impostor (issue 49, finding 2): whatever answers in the
 * gateway's place hands back a *genuine* verdict (signed by the real gateway's key, which the adapter trusts through
 * `jwksUrl`) given for another tool, another request or other arguments. The adapter checks it against the call the
 * framework will make and answers a refusal, so the tool never runs; relaying the real verdict for the very call
 * runs it (the control). The AI SDK path runs a real `generateText` with ai 6's offline mock model.
 */
import { randomUUID } from 'node:crypto';
import {
  Agent,
  Usage,
  setTracingDisabled,
  tool as agentTool,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from '@openai/agents';
import { generateText, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approvalResponses } from '../../../src/frameworks/ai-sdk/index.js';
import { answerInterrupt } from '../../../src/frameworks/langgraph/index.js';
import { runWithApprovals } from '../../../src/frameworks/openai-agents/index.js';
import type { FrameworkGateOptions } from '../../../src/frameworks/gate.js';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { genuineVerdict, startImpostorGateway, type ImpostorGateway } from '../../helpers/impostor-gateway.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
let impostor: ImpostorGateway;
let gate: FrameworkGateOptions;

beforeAll(async () => {
  setTracingDisabled(true);
  t = await startTestServer();
  impostor = await startImpostorGateway();
  // The adapter talks to the impostor but trusts only the real gateway's keys.
  gate = { url: impostor.url, token: 'fake', requireVerdict: { jwksUrl: `${t.url}/.well-known/jwks.json` } };
});
afterAll(async () => {
  await impostor?.close();
  await t?.close();
});
beforeEach(() => {
  impostor.onCreate = impostor.onGet = null;
});

/** The real gateway's verdict for exactly what was filed (approved, with `approvedArgs` when given). */
const relay = (approvedArgs?: Record<string, unknown>) => (body: Record<string, unknown>) =>
  genuineVerdict(t, body.tool_name as string, body.tool_args as Record<string, unknown>, approvedArgs);

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** One AI SDK turn that asks to run deploy {env: prod}, answered through tollgate, then the turn that runs it (or not). */
async function deployThroughTollgate(): Promise<{ ran: unknown[]; approved: unknown; reason: unknown }> {
  const ran: unknown[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) =>
      options.prompt.at(-1)?.role === 'tool'
        ? {
            content: [{ type: 'text', text: 'done' }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
            warnings: [],
          }
        : {
            content: [
              {
                type: 'tool-call',
                toolCallId: `call_${randomUUID()}`,
                toolName: 'deploy',
                input: JSON.stringify({ env: 'prod' }),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          },
  });
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
  const messages: ModelMessage[] = [{ role: 'user', content: 'deploy to prod' }];
  const first = await generateText({ model, tools, messages });
  messages.push(...first.response.messages);
  const answers = await approvalResponses(first.content, gate);
  messages.push(...answers);
  await generateText({ model, tools, messages });
  const part = answers[0]!.content[0]!;
  return { ran, approved: part.approved, reason: part.reason };
}

describe('tollgate/ai-sdk with requireVerdict, against a gateway impostor', () => {
  it('refuses a genuine verdict for another tool, and the tool never runs', async () => {
    const other = await genuineVerdict(t, 'read_docs', { env: 'prod' });
    impostor.onCreate = () => other;
    const { ran, approved, reason } = await deployThroughTollgate();
    expect(approved).toBe(false);
    expect(reason).toMatch(/^no valid verdict for request .*: wrong_tool: the verdict is for read_docs, not deploy/);
    expect(ran).toEqual([]);
  });

  it('refuses a genuine verdict for the same call filed as another request, and the tool never runs', async () => {
    const earlier = await genuineVerdict(t, 'deploy', { env: 'prod' });
    const filedId = randomUUID();
    impostor.onCreate = (body) => ({
      id: filedId,
      status: 'pending',
      tool_name: body.tool_name,
      tool_args: body.tool_args,
      allowed: null,
      approved_args: null,
      verdict_token: null,
    });
    impostor.onGet = (id): ApiRequest | null => (id === filedId ? earlier : null);
    const { ran, approved, reason } = await deployThroughTollgate();
    expect(approved).toBe(false);
    expect(reason).toMatch(
      new RegExp(`^no valid verdict for request ${filedId}: wrong_request: the verdict is for request ${earlier.id}`),
    );
    expect(ran).toEqual([]);
  });

  it('refuses a genuine verdict for edited arguments: the AI SDK would run the model’s own', async () => {
    impostor.onCreate = relay({ env: 'staging' });
    const { ran, approved, reason } = await deployThroughTollgate();
    expect(approved).toBe(false);
    expect(reason).toMatch(/args_mismatch/);
    expect(ran).toEqual([]);
  });

  it('runs the call when the impostor only relays the real verdict for it (the control)', async () => {
    impostor.onCreate = relay();
    const { ran, approved } = await deployThroughTollgate();
    expect(approved).toBe(true);
    expect(ran).toEqual([{ env: 'prod' }]);
  });
});

describe('tollgate/langgraph with requireVerdict, against a gateway impostor', () => {
  const hitl = {
    actionRequests: [{ name: 'deploy', args: { env: 'prod' } }],
    reviewConfigs: [{ actionName: 'deploy', allowedDecisions: ['approve', 'edit', 'reject'] }],
  };

  it('rejects an edit whose arguments are not the ones the verdict was signed for', async () => {
    const signed = await genuineVerdict(t, 'deploy', { env: 'prod' }, { env: 'staging' });
    // The answer claims the approver edited to prod-eu; the token says staging.
    impostor.onCreate = () => ({ ...signed, approved_args: { env: 'prod-eu' } });
    const answer = await answerInterrupt(hitl, `i-${randomUUID()}`, gate);
    expect(answer).toEqual({
      decisions: [
        { type: 'reject', message: expect.stringMatching(/^no valid verdict for request .*: args_mismatch/) },
      ],
    });
  });

  it('rejects a plain interrupt approved by a verdict for another tool', async () => {
    impostor.onCreate = async () => genuineVerdict(t, 'read_docs', { tool_name: 'deploy', env: 'prod' });
    const answer = await answerInterrupt({ tool_name: 'deploy', env: 'prod' }, `i-${randomUUID()}`, gate);
    expect(answer).toEqual({ approved: false, reason: expect.stringMatching(/wrong_tool/) });
  });

  it('edits with the approved arguments when the verdict was signed for them (the control)', async () => {
    impostor.onCreate = relay({ env: 'staging' });
    const answer = await answerInterrupt(hitl, `i-${randomUUID()}`, gate);
    expect(answer).toEqual({
      decisions: [{ type: 'edit', editedAction: { name: 'deploy', args: { env: 'staging' } } }],
    });
  });
});

/** An OpenAI Agents model that calls deploy {env: prod} once, then answers with what it was told. */
class DeployOnce implements Model {
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = Array.isArray(request.input) ? request.input : [];
    const told = input.find((i) => i.type === 'function_call_result');
    if (told)
      return {
        usage: new Usage(),
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: JSON.stringify(told) }],
          },
        ],
      };
    return {
      usage: new Usage(),
      output: [
        {
          type: 'function_call',
          callId: `call_${randomUUID()}`,
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

describe('tollgate/openai-agents runWithApprovals with requireVerdict, against a gateway impostor', () => {
  async function deploy(): Promise<{ ran: unknown[]; finalOutput: unknown }> {
    const ran: unknown[] = [];
    const deployTool = agentTool({
      name: 'deploy',
      description: 'Deploy',
      parameters: z.object({ env: z.string() }),
      needsApproval: true,
      execute: async ({ env }) => {
        ran.push({ env });
        return `deployed ${env}`;
      },
    });
    const result = await runWithApprovals(
      new Agent({ name: 'release-bot', model: new DeployOnce(), tools: [deployTool] }),
      'deploy to prod',
      gate,
    );
    return { ran, finalOutput: result.finalOutput };
  }

  it('rejects a call approved by a genuine verdict filed as another request, and the tool never runs', async () => {
    const earlier = await genuineVerdict(t, 'deploy', { env: 'prod' });
    const filed: string[] = [];
    impostor.onCreate = (body) => {
      const id = randomUUID();
      filed.push(id);
      return {
        id,
        status: 'pending',
        tool_name: body.tool_name,
        tool_args: body.tool_args,
        allowed: null,
        approved_args: null,
        verdict_token: null,
      };
    };
    impostor.onGet = () => earlier;
    const { ran, finalOutput } = await deploy();
    expect(ran).toEqual([]);
    expect(finalOutput).toContain(`no valid verdict for request ${filed[0]}: wrong_request`);
  });

  it('runs the call when the impostor only relays the real verdict for it (the control)', async () => {
    impostor.onCreate = relay();
    const { ran } = await deploy();
    expect(ran).toEqual([{ env: 'prod' }]);
  });
});
