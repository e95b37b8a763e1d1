/** A confirmation request as the gateway would hold it, for tests that call the adapter directly. */
import { randomUUID } from 'node:crypto';
import type { ConfirmationRequest } from '../../../src/requests/types.js';

/** A pending request for `deploy_service`, with `overrides`. */
export function pendingRequest(overrides: Partial<ConfirmationRequest> = {}): ConfirmationRequest {
  const now = new Date('2026-03-01T10:00:00.000Z');
  return {
    id: randomUUID(),
    status: 'pending',
    toolName: 'deploy_service',
    toolArgs: { service: 'billing', version: '1.4.2' },
    approvedArgs: null,
    prompt: 'Deploy billing 1.4.2 to production?',
    options: ['Approve', 'Deny'],
    agentId: 'ops-bot',
    userId: 'u42',
    sessionId: null,
    toolCallId: null,
    metadata: {},
    channels: [{ type: 'feishu', target: 'oc_chat' }],
    approvers: [],
    requiredApprovals: 1,
    onTimeout: 'deny',
    idempotencyKey: null,
    argsSha256: 'x'.repeat(64),
    callbackUrl: null,
    nonce: 'nonce-0123456789',
    createdAt: now,
    expiresAt: new Date(now.getTime() + 300_000),
    updatedAt: now,
    respondedAt: null,
    respondedBy: null,
    respondedVia: null,
    decisionOption: null,
    reason: null,
    allowed: null,
    ...overrides,
  };
}
