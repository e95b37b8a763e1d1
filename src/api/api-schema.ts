/**
 * @module api/api-schema
 * The zod schemas of the HTTP API's inputs. They validate requests in `http/`, generate `/openapi.json`, and type
 * `GateClient` — one source for all three. No express here, so clients can import it.
 */
import { z } from 'zod';
import { boundedJsonObject } from '../utils/json-bounds.js';

export { parseInput } from './validation.js';

const id = z.string().min(1).max(200);

/**
 * An approver identity, `channel:id` (`slack:U0123`, `web:alice`, `slack:*` in allowlists). Both parts non-empty, and no
 * control, format (bidi overrides, zero-width) or whitespace characters, so what an auditor reads in `responded_by` is
 * what was typed and two ids that look alike are alike.
 */
export const approverId = z
  .string()
  .max(200)
  .regex(
    /^(?:[a-z][a-z0-9_-]*:[^:\s].*|[^@\s:]+@[^@\s:]+\.[^@\s:]+)$/,
    'approvers look like "slack:U0123", "web:alice", "person:alice", "group:finance-leads" or an email address',
  )
  .refine(
    (v) => !/[\p{Cc}\p{Cf}\p{Z}]/u.test(v),
    'approver ids may not contain control, invisible or whitespace characters',
  );
const jsonObject = boundedJsonObject;

/** A card destination: `{"type":"slack","target":"C0123"}`, `{"type":"web"}`. */
export const channelTargetSchema = z.strictObject({
  type: z
    .string()
    .min(1)
    .max(40)
    .regex(/^[a-z][a-z0-9_-]*$/, 'lowercase channel name'),
  target: z.string().min(1).max(200).optional(),
});

/** A coding agent's name as `tollgate hook <agent>` records it (`codex`, `gemini`, …). */
export const agentKindSchema = z
  .string()
  .min(1)
  .max(40)
  .regex(/^[a-z][a-z0-9_-]*$/, 'a lowercase agent name, e.g. "codex"');

/** Where a coding agent was working: every field a string or null (absent is null). */
export const agentContextSchema = z
  .strictObject({
    session_id: z.string().max(200).nullable().optional(),
    cwd: z.string().max(4000).nullable().optional(),
    repo: z.string().max(400).nullable().optional(),
    branch: z.string().max(400).nullable().optional(),
    model: z.string().max(200).nullable().optional(),
  })
  .transform((c) => ({
    session_id: c.session_id ?? null,
    cwd: c.cwd ?? null,
    repo: c.repo ?? null,
    branch: c.branch ?? null,
    model: c.model ?? null,
  }));

/** An MCP tool's annotations as its upstream server declared them in `tools/list` (`tollgate mcp` sends them). */
export const toolAnnotationsSchema = z.strictObject({
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

const riskSchema = z.enum(['low', 'medium', 'high']);
/** The `summary` of a request as the API returns it (the contract's call summary, `summaries/types.ts`). */
export const callSummarySchema = z.object({
  kind: z.enum(['edit', 'shell', 'sql', 'mcp', 'other']),
  risk: riskSchema,
  risk_reasons: z.array(z.object({ code: z.string(), text: z.string() })),
  files: z
    .array(
      z.object({
        path: z.string(),
        status: z.enum(['added', 'modified', 'deleted']),
        added: z.int(),
        removed: z.int(),
        diff: z.string(),
        outside_cwd: z.boolean(),
      }),
    )
    .optional(),
  commands: z
    .array(z.object({ program: z.string(), args: z.array(z.string()), flags: z.array(z.string()) }))
    .optional(),
  statements: z
    .array(z.object({ kind: z.string(), tables: z.array(z.string()), flags: z.array(z.string()) }))
    .optional(),
  annotations: toolAnnotationsSchema.optional(),
  truncated: z.boolean(),
});

/** `POST /v1/requests` body. */
export const createRequestSchema = z.strictObject({
  tool_name: z.string().min(1).max(200),
  tool_args: jsonObject.default({}),
  prompt: z.string().max(4000).optional(),
  options: z.array(z.string().min(1).max(75)).min(2).max(10).optional(),
  agent_id: id.optional(),
  user_id: id.optional(),
  session_id: id.optional(),
  tool_call_id: id.optional(),
  agent_kind: agentKindSchema.optional(),
  context: agentContextSchema.optional(),
  tool_annotations: toolAnnotationsSchema.optional(),
  metadata: jsonObject.optional(),
  channels: z.array(channelTargetSchema).min(1).max(20).optional(),
  approvers: z.array(approverId).max(100).optional(),
  required_approvals: z.int().min(1).max(20).default(1),
  timeout_s: z
    .int()
    .min(1)
    .max(14 * 24 * 3600)
    .optional(),
  on_timeout: z.enum(['deny', 'approve']).optional(),
  idempotency_key: id.optional(),
  callback_url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional(),
});
/** A validated `POST /v1/requests` body. */
export type CreateRequestBody = z.infer<typeof createRequestSchema>;
/** What a client may send to `POST /v1/requests` (defaults optional). */
export type CreateRequestInput = z.input<typeof createRequestSchema>;

/** `POST /v1/requests/:id/decision` body. */
export const decisionSchema = z.strictObject({
  decision: z.enum(['approve', 'deny']),
  /** Who decides; a `request:decide` token may omit it (it decides as its bound identity) or must name that identity. */
  approver: approverId.optional(),
  reason: z.string().max(2000).optional(),
  option: z.string().min(1).max(75).optional(),
  approved_args: jsonObject.optional(),
  args_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** The label of a grant the request's policy rule offers ("Approve for 1 hour"): approving also gives that standing grant. */
  grant: z.string().min(1).max(75).optional(),
});
/** A validated decision body. */
export type DecisionBody = z.infer<typeof decisionSchema>;

/** `POST /v1/requests/:id/receipt` body: what happened when the tool ran. */
export const receiptSchema = z.strictObject({
  outcome: z.enum(['succeeded', 'failed']),
  detail: z.string().max(4000).optional(),
  args_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});

/** `POST /v1/requests/:id/cancel` body (optional). */
export const cancelSchema = z.strictObject({
  reason: z.string().max(2000).optional(),
  actor: z.string().min(1).max(200).optional(),
});

const isoDate = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

/** `GET /v1/requests` query. */
export const listQuerySchema = z.strictObject({
  status: z.enum(['pending', 'approved', 'denied', 'expired', 'cancelled']).optional(),
  tool_name: z.string().min(1).max(200).optional(),
  agent_id: z.string().min(1).max(200).optional(),
  /** Filed by this coding agent (`tollgate hook <agent>`): `codex`, `gemini`, … */
  agent_kind: z.string().min(1).max(40).optional(),
  /** Filed from this repository (`context.repo`, e.g. `acme/billing`). */
  repo: z.string().min(1).max(400).optional(),
  responded_by: z.string().min(1).max(200).optional(),
  /** Decided or voted on by this person (a directory id, or an account), from any of their accounts. */
  person: z.string().min(1).max(200).optional(),
  /** Decided or voted on by a member of this group. */
  group: z.string().min(1).max(200).optional(),
  since: isoDate.optional(),
  until: isoDate.optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: z.string().min(1).max(500).optional(),
});

/** `GET /v1/requests/export` query: the list filters plus a format. */
export const exportQuerySchema = listQuerySchema.omit({ limit: true, cursor: true }).extend({
  format: z.enum(['csv', 'ndjson']).default('ndjson'),
});

/** `GET /v1/requests/:id?wait=` query: seconds to wait, capped at 55 so clients stay under 60 s proxy timeouts. */
export const waitQuerySchema = z.strictObject({
  wait: z.coerce
    .number()
    .min(0)
    .transform((s) => Math.min(s, 55))
    .optional(),
});
