// tollgate/langgraph against a running gateway, with langchain's FakeToolCallingModel (offline): approve, reject with a
// reason the model sees, approve with edited args, a plain interrupt(), and a restarted process re-attaching.
import type { BaseMessage } from '@langchain/core/messages';
import { Annotation, MemorySaver, StateGraph, interrupt } from '@langchain/langgraph';
import { FakeToolCallingModel, createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resumeCommand, type GraphInterrupt } from '../../../src/frameworks/langgraph/index.js';
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

function setup(callId: string) {
  const ran: unknown[] = [];
  const deploy = tool(
    async ({ env }: { env: string }) => {
      ran.push({ env });
      return `deployed ${env}`;
    },
    { name: 'deploy', description: 'deploy', schema: z.object({ env: z.string() }) },
  );
  const model = new FakeToolCallingModel({ toolCalls: [[{ name: 'deploy', args: { env: 'prod' }, id: callId }], []] });
  const agent = createAgent({
    model,
    tools: [deploy],
    checkpointer: new MemorySaver(),
    middleware: [
      humanInTheLoopMiddleware({ interruptOn: { deploy: { allowedDecisions: ['approve', 'edit', 'reject'] } } }),
    ],
  });
  return { ran, agent };
}

async function runOnce(callId: string, threadId: string, body: Record<string, unknown>) {
  const { ran, agent } = setup(callId);
  // Every prompt the model is given, so a test can assert what the model saw.
  const seen: BaseMessage[][] = [];
  const config = {
    configurable: { thread_id: threadId },
    callbacks: [{ handleChatModelStart: (_llm: unknown, prompts: BaseMessage[][]) => void seen.push(...prompts) }],
  };
  const first = await agent.invoke({ messages: [{ role: 'user', content: 'deploy prod' }] }, config);
  const interrupts = (first as { __interrupt__?: GraphInterrupt[] }).__interrupt__ ?? [];
  expect(interrupts).toHaveLength(1);
  const commanding = resumeCommand(interrupts, { url: server.url, token: server.token, threadId });
  const req = await pendingFor(server);
  expect(req).toMatchObject({ tool_name: 'deploy', tool_args: { env: 'prod' } });
  await decide(server, req.id, body);
  const final = await agent.invoke(await commanding, config);
  return { ran, seen, final, req };
}

describe('tollgate/langgraph with humanInTheLoopMiddleware', () => {
  it('approved: the tool runs', async () => {
    const { ran, req } = await runOnce('call_1', 't-approve', { decision: 'approve', approver: 'web:alice' });
    expect(ran).toEqual([{ env: 'prod' }]);
    expect(req.idempotency_key).toMatch(/^langgraph:t-approve:.+:0$/);
  });

  it('rejected with a reason: the tool does not run and the model sees the reason', async () => {
    const { ran, seen } = await runOnce('call_2', 't-deny', {
      decision: 'deny',
      approver: 'web:bob',
      reason: 'change freeze until Monday',
    });
    expect(ran).toEqual([]);
    expect(JSON.stringify(seen.at(-1)?.map((m) => m.content))).toContain('change freeze until Monday');
  });

  it('approved with edited args: the tool gets the approver’s args', async () => {
    const { ran } = await runOnce('call_3', 't-edit', {
      decision: 'approve',
      approver: 'web:alice',
      approved_args: { env: 'staging' },
    });
    expect(ran).toEqual([{ env: 'staging' }]);
  });

  it('a restarted process re-attaches to the same request', async () => {
    const { agent } = setup('call_4');
    const config = { configurable: { thread_id: 't-restart' } };
    const first = (await agent.invoke({ messages: [{ role: 'user', content: 'deploy prod' }] }, config)) as {
      __interrupt__?: GraphInterrupt[];
    };
    const abort = new AbortController();
    const dying = resumeCommand(first.__interrupt__ ?? [], {
      url: server.url,
      token: server.token,
      threadId: 't-restart',
      signal: abort.signal,
    });
    const req = await pendingFor(server);
    abort.abort();
    await expect(dying).rejects.toThrow();
    const again = resumeCommand(first.__interrupt__ ?? [], {
      url: server.url,
      token: server.token,
      threadId: 't-restart',
    });
    await decide(server, req.id, { decision: 'approve', approver: 'web:alice' });
    expect((await again).resume).toEqual({ decisions: [{ type: 'approve' }] });
    const all = (await (await server.api('/v1/requests')).json()) as { items: ApiRequest[] };
    expect(all.items).toHaveLength(1);
  });
});

describe('tollgate/langgraph with a plain interrupt()', () => {
  it('resumes with the verdict and the approver’s reason', async () => {
    const State = Annotation.Root({ answer: Annotation<unknown>() });
    const graph = new StateGraph(State)
      .addNode('ask', () => ({ answer: interrupt({ tool_name: 'wire_money', amount: 100 }) }))
      .addEdge('__start__', 'ask')
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: 't-plain' } };
    const first = (await graph.invoke({}, config)) as { __interrupt__?: GraphInterrupt[] };
    const commanding = resumeCommand(first.__interrupt__ ?? [], {
      url: server.url,
      token: server.token,
      threadId: 't-plain',
    });
    const req = await pendingFor(server);
    expect(req).toMatchObject({ tool_name: 'wire_money', tool_args: { tool_name: 'wire_money', amount: 100 } });
    await decide(server, req.id, { decision: 'deny', approver: 'web:bob', reason: 'too much' });
    const final = await graph.invoke(await commanding, config);
    expect(final.answer).toEqual({ approved: false, reason: 'too much' });
  });
});
