/** A confirmation request as the gateway would hold it, for tests that call the adapter directly. */
import { newConfirmationRequest } from '../../../src/requests/new-request.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';

const DEFAULTS = { timeoutS: 300, channels: [], options: ['Approve', 'Deny'], onTimeout: 'deny' as const };

/** A pending request for `deploy_service`, with `overrides`. */
export function pendingRequest(overrides: Partial<ConfirmationRequest> = {}): ConfirmationRequest {
  const request = newConfirmationRequest(
    {
      toolName: 'deploy_service',
      toolArgs: { service: 'billing', version: '1.4.2' },
      prompt: 'Deploy billing 1.4.2 to production?',
      agentId: 'ops-bot',
      userId: 'u42',
    },
    DEFAULTS,
    [{ type: 'feishu', target: 'oc_chat' }],
    'x'.repeat(64),
    new Date('2026-03-01T10:00:00.000Z'),
  );
  return { ...request, nonce: 'nonce-0123456789', ...overrides };
}
