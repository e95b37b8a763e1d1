/**
 * @module policy/schema
 * The YAML shape of the approval policy: the `policies:` list and the `default:` rule (ARCHITECTURE.md, "Approval
 * policy"). Only shape is checked here; `when` expressions are compiled by `expression.ts` and names by `load.ts`.
 */
import { z } from 'zod';
import { approverId, channelTargetSchema } from '../api/api-schema.js';

/** A string or a list of strings (a list matches when any entry does). */
const oneOrMany = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

/** A scalar a `metadata.<key>` matcher compares with (a list: any of them). */
const metadataValue = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.array(z.union([z.string(), z.number(), z.boolean()])).min(1),
]);

/** Fields a grant may be scoped to: the request's own fields, `args.<key>` and `metadata.<key>`. */
export const grantScopeField = z
  .string()
  .regex(
    /^(tool_name|agent_id|user_id|session_id|(args|metadata)\.[A-Za-z0-9_.-]+)$/,
    'a scope field is tool_name, agent_id, user_id, session_id, args.<key> or metadata.<key>',
  );

/** One grant button a rule offers: "Approve for 1 hour", valid `ttl_s`, for requests with equal `scope` values. */
export const grantOfferSchema = z.strictObject({
  label: z.string().min(1).max(75),
  ttl_s: z
    .int()
    .min(1)
    .max(90 * 24 * 3600),
  scope: z.array(grantScopeField).min(1).default(['tool_name']),
});

/** One escalation step: after `after_s` seconds pending, these approvers and channels are added. */
export const escalationStepSchema = z.strictObject({
  after_s: z.int().min(1),
  approvers: z.array(approverId).max(100).optional(),
  channels: z.array(channelTargetSchema).min(1).max(20).optional(),
});

/** What a matching rule decides and how an `ask` is routed; shared by rules and `default:`. */
const ruleBody = {
  decision: z.enum(['allow', 'deny', 'ask']).default('ask'),
  approvers: z.array(approverId).max(100).optional(),
  required_approvals: z.int().min(1).max(20).optional(),
  channels: z.array(channelTargetSchema).min(1).max(20).optional(),
  timeout_s: z
    .int()
    .min(1)
    .max(14 * 24 * 3600)
    .optional(),
  on_timeout: z.enum(['deny', 'approve']).optional(),
  reason: z.string().min(1).max(2000).optional(),
  remind_after_s: z.int().min(1).optional(),
  escalate: z.array(escalationStepSchema).max(10).optional(),
  grants: z.union([z.literal('none'), z.array(grantOfferSchema).max(10)]).optional(),
};

/** What a rule matches on; every field given must match (an empty `match` matches every request). */
export const matchSchema = z.strictObject({
  tool: oneOrMany.optional(),
  agent: oneOrMany.optional(),
  user: oneOrMany.optional(),
  session: oneOrMany.optional(),
  /** A coding agent (`tollgate hook <agent>`): `codex`, `gemini`, … */
  agent_kind: oneOrMany.optional(),
  /** The git repository it works in (`acme/billing`, `acme/*`). */
  repo: oneOrMany.optional(),
  /** Its working directory (`/srv/*`: `*` crosses `/`). */
  cwd: oneOrMany.optional(),
  metadata: z.record(z.string().min(1), metadataValue).optional(),
  when: z.string().min(1).max(4000).optional(),
});

/** One rule of `policies:`. */
export const ruleSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only (it is shown as "policy:<name>")'),
  match: matchSchema.default({}),
  ...ruleBody,
});

/** The `default:` rule: what happens when no rule matches (`{decision: ask}` when absent). */
export const defaultRuleSchema = z.strictObject(ruleBody);

/** A rule as written in YAML, after defaults. */
export type RuleConfig = z.infer<typeof ruleSchema>;
/** The `default:` rule as written. */
export type DefaultRuleConfig = z.infer<typeof defaultRuleSchema>;
/** A grant button as written. */
export type GrantOffer = z.infer<typeof grantOfferSchema>;
/** An escalation step as written. */
export type EscalationStep = z.infer<typeof escalationStepSchema>;
