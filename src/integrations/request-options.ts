/**
 * @module integrations/request-options
 * The request settings a runtime adapter can add to the calls it gates — where cards go, who may approve, when the
 * request expires — read from CLI flags (`--channel slack:C0123`) or from a hook URL's query string
 * (`?channel=slack:C0123&approver=web:alice`). One parser for both, so the CLI and the HTTP hooks agree.
 */
import { z } from 'zod';
import { fieldProblems, validationError } from '../api/validation.js';
import type { GateRequestOptions } from './request-fields.js';

export { requestFields, type GateRequestOptions } from './request-fields.js';

/** The raw values, as strings, the way flags and query strings deliver them. Repeatable keys are arrays. */
export interface RawRequestOptions {
  channel?: string[];
  approver?: string[];
  expires?: string;
  on_timeout?: string;
  agent_id?: string;
}

const rawSchema = z.strictObject({
  channel: z
    .array(z.string().regex(/^[a-z][a-z0-9_-]*(:.+)?$/, 'use "type" or "type:target", e.g. "web" or "slack:C0123"'))
    .max(20)
    .optional(),
  approver: z
    .array(z.string().regex(/^[a-z][a-z0-9_-]*:.+$/, 'approver ids look like "slack:U0123" or "web:alice"'))
    .max(100)
    .optional(),
  expires: z.coerce
    .number()
    .int('a whole number of seconds')
    .min(1)
    .max(14 * 24 * 3600)
    .optional(),
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
