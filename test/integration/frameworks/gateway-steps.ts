/**
 * What the framework suites do on the gateway's side of a run: find the request a tool call filed, and decide it as
 * an approver would, over the HTTP API.
 */
import { expect } from 'vitest';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { eventually } from '../../helpers/eventually.js';
import type { TestServer } from '../../helpers/server.js';

/** The pending request filed for the tool call `callId` (any pending request when it is left out), once there is one. */
export async function pendingFor(server: TestServer, callId?: string): Promise<ApiRequest> {
  return eventually(async () => {
    const page = (await (await server.api('/v1/requests?status=pending')).json()) as { items: ApiRequest[] };
    const found = callId === undefined ? page.items[0] : page.items.find((r) => r.tool_call_id === callId);
    if (!found) throw new Error(`no pending request${callId === undefined ? '' : ` for ${callId}`} yet`);
    return found;
  });
}

/** Posts a decision on request `id` and expects it taken (200). */
export async function decide(server: TestServer, id: string, body: Record<string, unknown>): Promise<void> {
  expect((await server.api(`/v1/requests/${id}/decision`, { body })).status).toBe(200);
}
