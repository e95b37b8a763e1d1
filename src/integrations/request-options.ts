/**
 * @module integrations/request-options
 * The request settings a runtime adapter can add to the calls it gates — where cards go, who may approve, when the
 * request expires — read from CLI flags (`--channel slack:C0123`) or from a hook URL's query string
 * (`?channel=slack:C0123&approver=web:alice`). One parser for both, so the CLI and the HTTP hooks agree.
 */
import { z } from 'zod';
import type { CreateRequestInput } from '../api/api-schema.js';
import { fieldProblems, validationError } from '../api/validation.js';

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

/** The raw values, as strings, the way flags and query strings deliver them. Repeatable keys are arrays. */
export interface RawRequestOptions {
  channel?: string[];
  approver?: string[];
  expires?: string;
  on_timeout?: string;
  agent_id?: string;
}

const rawSchema = z.strictObject({
  channel: z.array(z.string().regex(/^[a-z][a-z0-9_-]*(:.+)?$/, 'use "type" or "type:target", e.g. "web" or "slack:C0123"')).max(20).optional(),
  approver: z.array(z.string().regex(/^[a-z][a-z0-9_-]*:.+$/, 'approver ids look like "slack:U0123" or "web:alice"')).max(100).optional(),
  expires: z.coerce.number().int('a whole number of seconds').min(1).max(14 * 24 * 3600).optional(),
  on_timeout: z.enum(['deny', 'approve']).optional(),
  agent_id: z.string().min(1).max(200).optional(),
});

/**
 * Validates raw option values; throws a ValidationError naming the bad one (`channel[0]`, `expires`).
 * @example parseRequestOptions({ channel: ['slack:C0123'], expires: '3600' })
 */
export function parseRequestOptions(raw: RawRequestOptions): GateRequestOptions {
  const result = rawSchema.safeParse(raw);
  if (!result.success) {
    throw validationError(fieldProblems(result.error.issues, '', 'options'));
  }
  const o = result.data;
  return {
    channels: o.channel?.map((c) => {
      const i = c.indexOf(':');
      return i === -1 ? { type: c } : { type: c.slice(0, i), target: c.slice(i + 1) };
    }),
    approvers: o.approver,
    expiresS: o.expires,
    onTimeout: o.on_timeout,
    agentId: o.agent_id,
  };
}

/** Reads the option keys from an express query object (`?channel=a&channel=b` arrives as an array). */
export function rawOptionsFromQuery(query: Record<string, unknown>): RawRequestOptions {
  const list = (v: unknown) => (v === undefined ? undefined : (Array.isArray(v) ? v : [v]).map(String));
  const one = (v: unknown) => (v === undefined ? undefined : Array.isArray(v) ? String(v.at(-1)) : String(v));
  return {
    channel: list(query.channel),
    approver: list(query.approver),
    expires: one(query.expires),
    on_timeout: one(query.on_timeout),
    agent_id: one(query.agent_id),
  };
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
