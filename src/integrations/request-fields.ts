/**
 * @module integrations/request-fields
 * The request settings a runtime adapter adds to the calls it gates, once parsed (`request-options.ts` parses them),
 * and the `POST /v1/requests` fields they become. Apart from the parser so that a client command given none of them
 * (`tollgate ask "Deploy?"`) does not load zod, the parser's validator.
 */
import type { CreateRequestInput } from '../api/api-schema.js';

/** Settings applied to every request an adapter files. */
export interface GateRequestOptions {
  /** Card destinations; the gateway's default channels when absent. */
  channels?: { type: string; target?: string }[];
  /** Who may decide (`slack:U0123`, `web:alice`); anyone who sees the card when absent. */
  approvers?: string[];
  /** Seconds until the request expires (the gateway's default when absent). */
  expiresS?: number;
  /** What expiry means. */
  onTimeout?: 'deny' | 'approve';
  /** The `agent_id` recorded on the request. */
  agentId?: string;
}

/** The `POST /v1/requests` fields the options set (absent ones left out, so gateway defaults apply). */
export function requestFields(options: GateRequestOptions, defaultAgentId: string): Partial<CreateRequestInput> {
  return {
    agent_id: options.agentId ?? defaultAgentId,
    ...(options.channels ? { channels: options.channels } : {}),
    ...(options.approvers ? { approvers: options.approvers } : {}),
    ...(options.expiresS !== undefined ? { timeout_s: options.expiresS } : {}),
    ...(options.onTimeout ? { on_timeout: options.onTimeout } : {}),
  };
}
