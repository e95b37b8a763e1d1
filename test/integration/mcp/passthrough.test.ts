/**
 * `tollgate mcp` passes the upstream's resources, prompts, completions and log messages through, mirrors its
 * capabilities and instructions, and forwards every list-changed notification — real SDK client, proxy process and
 * stdio upstream process.
 */
import {
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { FAKE_INSTRUCTIONS } from '../../fakes/mcp/fake-server.js';
import { startProxy, type ProxyFixture } from './helpers.js';

let f: ProxyFixture;
beforeEach(async () => {
  f = await startProxy();
}, 30_000);
afterEach(() => f.close());

describe('tollgate mcp passes the rest through', () => {
  it('mirrors the upstream capabilities and instructions', () => {
    expect(f.client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
    });
    expect(f.client.getInstructions()).toBe(FAKE_INSTRUCTIONS);
  });

  it('lists and reads resources and templates, gets prompts and completions, without filing requests', async () => {
    expect((await f.client.listResources()).resources).toEqual([
      { uri: 'file:///readme.txt', name: 'readme', mimeType: 'text/plain' },
    ]);
    expect((await f.client.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: 'file:///{path}', name: 'any file' },
    ]);
    expect((await f.client.readResource({ uri: 'file:///notes.md' })).contents).toEqual([
      { uri: 'file:///notes.md', mimeType: 'text/plain', text: 'text of file:///notes.md' },
    ]);
    expect((await f.client.listPrompts()).prompts).toEqual([
      { name: 'review', description: 'Review a file', arguments: [{ name: 'path', required: true }] },
    ]);
    expect((await f.client.getPrompt({ name: 'review', arguments: { path: '/tmp/a' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Please review /tmp/a' } },
    ]);
    const completion = await f.client.complete({
      ref: { type: 'ref/prompt', name: 'review' },
      argument: { name: 'path', value: '/tmp/b' },
    });
    expect(completion.completion.values).toEqual(['/tmp/b']);
    expect(await f.client.subscribeResource({ uri: 'file:///readme.txt' })).toEqual({});
    expect(await f.client.setLoggingLevel('info')).toEqual({});
    expect(await f.allRequests()).toHaveLength(0);
  }, 30_000);

  it('forwards tools, resources and prompts list changes, resource updates and log messages; the new tool is listed', async () => {
    const seen: string[] = [];
    f.client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void seen.push(n.method));
    f.client.setNotificationHandler(ResourceListChangedNotificationSchema, (n) => void seen.push(n.method));
    f.client.setNotificationHandler(PromptListChangedNotificationSchema, (n) => void seen.push(n.method));
    f.client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n) => void seen.push(`${n.method} ${n.params.uri}`),
    );
    f.client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (n) => void seen.push(`${n.method} ${String(n.params.data)}`),
    );
    expect((await f.client.listTools()).tools.map((t) => t.name)).not.toContain('new_tool');

    await f.client.callTool({ name: 'add_tool', arguments: {} });
    await eventually(() =>
      expect(seen.sort()).toEqual([
        'notifications/message new_tool added',
        'notifications/prompts/list_changed',
        'notifications/resources/list_changed',
        'notifications/resources/updated file:///readme.txt',
        'notifications/tools/list_changed',
      ]),
    );
    expect((await f.client.listTools()).tools.map((t) => t.name)).toContain('new_tool');
    // A tool the upstream added later is gated like any other (not annotated read-only).
    void f.client.callTool({ name: 'new_tool', arguments: {} }).catch(() => undefined);
    expect((await f.pendingRequest()).tool_name).toBe('mcp__files__new_tool');
  }, 30_000);

  it("passes the upstream's progress notifications on under the client's progress token, before the result", async () => {
    // A notification handler rather than `onprogress`: the SDK client drops progress that it reads in the same chunk
    // as the response (it forgets the call's handler first), which would make this test depend on pipe timing.
    const progress: unknown[] = [];
    f.client.setNotificationHandler(ProgressNotificationSchema, (n) => void progress.push(n.params));
    const result = await f.client.callTool({ name: 'slow_read', arguments: {}, _meta: { progressToken: 'tok-7' } });
    expect(result.content).toEqual([{ type: 'text', text: 'slow result' }]);
    // Notification handlers run a microtask after their message is read: let the last one land.
    await eventually(() =>
      expect(progress).toEqual([
        { progressToken: 'tok-7', progress: 1, total: 2, message: 'step 1' },
        { progressToken: 'tok-7', progress: 2, total: 2, message: 'step 2' },
      ]),
    );
  }, 30_000);
});
