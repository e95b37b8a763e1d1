/**
 * @module hooks/builtin/webhook
 * `webhook`: PulseBot's verdict protocol. Before a call it POSTs `{tool_name, arguments, session_id}` and
 * reads `{verdict: "approve"|"deny"|"modify", reasoning?, modified_arguments?}`; after a call it POSTs the
 * same with `event: "post_call"` and the result, and ignores the answer.
 *
 * The URL passes the one outbound check (utils/outbound) like every URL tollgate calls: a loopback, private or
 * link-local address is refused when the hook is configured and again at the socket (a name that resolves to one),
 * unless `TOLLGATE_OUTBOUND_ALLOW` lists it. A refused configuration fails loudly at load rather than at each call,
 * where `fail_open` (on by default) would quietly let every call through.
 */
import { z } from 'zod';
import { HookConfigError, parseOrThrow } from '../config-errors.js';
import type { HookContext, HookLogger, HookObject, HookResult } from '../types.js';
import { stderrHookLogger } from '../types.js';
import { defineBuiltin } from './types.js';
import { describeError } from '../../api/errors.js';
import { exchangeOutbound, outboundUrlProblem, parseOutboundAllow } from '../../utils/outbound.js';

/** Config of `webhook`. `timeout` is in seconds. */
export const webhookConfigSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  auth_header: z.string().default(''),
  timeout: z.number().positive().default(5),
  fail_open: z.boolean().default(true),
  post_call: z.boolean().default(true),
  headers: z.record(z.string(), z.string()).default({}),
});

/** Config of `webhook`. */
export type WebhookConfig = z.input<typeof webhookConfigSchema>;

const verdictSchema = z.object({
  verdict: z.enum(['approve', 'deny', 'modify']),
  reasoning: z.string().nullish(),
  modified_arguments: z.record(z.string(), z.unknown()).nullish(),
});

/** The `webhook` hook; listed at `tool:pre` it also notifies `tool:post` and `tool:error` unless `post_call: false`. */
export const webhookBuiltin = defineBuiltin({
  name: 'webhook',
  summary: "PulseBot's webhook verdict protocol, with post_call notifications",
  schema: webhookConfigSchema,
  points: ['tool:pre', 'tool:post', 'tool:error'],
  companions: (config) => (config.post_call ? ['tool:post', 'tool:error'] : []),
  // Unreachable-webhook handling is the hook's own (fail_open); the engine should not add a second policy.
  failOpen: true,
  create: (config, deps) => buildWebhook(config, deps.logger, deps.outboundAllow ?? allowFromEnv()),
});

/**
 * Builds a `webhook` hook; throws a HookConfigError for bad config (a URL the outbound check refuses among them).
 * Register it at `tool:pre` and, for post_call, `tool:post`/`tool:error`. `outboundAllow` defaults to
 * `TOLLGATE_OUTBOUND_ALLOW` from the environment.
 */
export function webhookHook(
  config: WebhookConfig,
  logger: HookLogger = stderrHookLogger,
  outboundAllow: readonly string[] = allowFromEnv(),
): HookObject {
  const parsed = parseOrThrow(webhookConfigSchema, config, undefined, 'webhook');
  try {
    return buildWebhook(parsed, logger, outboundAllow);
  } catch (error) {
    throw new HookConfigError((error as Error).message, undefined, 'webhook');
  }
}

const allowFromEnv = () => parseOutboundAllow(process.env.TOLLGATE_OUTBOUND_ALLOW, process.env.TOLLGATE_CALLBACK_ALLOW);

function buildWebhook(
  config: z.output<typeof webhookConfigSchema>,
  logger: HookLogger,
  allow: readonly string[],
): HookObject {
  const problem = outboundUrlProblem(config.url, allow);
  if (problem) throw new Error(`url: ${problem}`);
  const post = async (body: Record<string, unknown>): Promise<unknown> => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...config.headers };
    if (config.auth_header) headers.authorization = config.auth_header;
    const answer = await exchangeOutbound(
      config.url,
      { headers, body: JSON.stringify(body), timeoutMs: config.timeout * 1000 },
      allow,
    );
    if (answer.status < 200 || answer.status > 299) throw new Error(`webhook answered HTTP ${answer.status}`);
    return answer.body ? (JSON.parse(answer.body) as unknown) : null;
  };

  const preCall = async (context: HookContext): Promise<HookResult> => {
    let answer: z.output<typeof verdictSchema>;
    try {
      const parsed = verdictSchema.safeParse(await post(requestBody(context)));
      if (!parsed.success) throw new Error('webhook answer is not {verdict: "approve"|"deny"|"modify", …}');
      answer = parsed.data;
    } catch (err) {
      const why = describe(err);
      logger.warn('webhook unavailable', { url: config.url, error: why, fail_open: config.fail_open });
      if (config.fail_open)
        return { action: 'continue', sideEffects: [`webhook: unavailable (${why}); allowed because fail_open is on`] };
      return {
        action: 'deny',
        reason: `the approval webhook could not be consulted (${why})`,
        sideEffects: [`webhook: unavailable (${why}); denied`],
      };
    }
    const reasoning = answer.reasoning ?? undefined;
    if (answer.verdict === 'deny')
      return { action: 'deny', reason: reasoning ?? 'denied by the approval webhook', sideEffects: ['webhook: deny'] };
    if (answer.verdict === 'modify') {
      if (!answer.modified_arguments)
        return { action: 'continue', reason: reasoning, sideEffects: ['webhook: modify without arguments; unchanged'] };
      return { action: 'modify', data: answer.modified_arguments, reason: reasoning, sideEffects: ['webhook: modify'] };
    }
    return { action: 'continue', sideEffects: ['webhook: approve'] };
  };

  const postCall = async (context: HookContext): Promise<undefined> => {
    const success = context.point === 'tool:post';
    const result = success ? { success, output: context.result } : { success, error: describeError(context.error) };
    try {
      await post({ event: 'post_call', ...requestBody(context), result });
    } catch (err) {
      // Notifications never change the call's fate (PulseBot's rule); the log is the only trace.
      logger.warn('webhook post_call notification failed', { url: config.url, error: describe(err) });
    }
    return undefined;
  };

  return {
    name: 'webhook',
    // Its own HTTP timeout governs; leave a second of headroom so that message wins over the engine's.
    timeoutMs: config.timeout * 1000 + 1000,
    execute: (context) => (context.point === 'tool:pre' ? preCall(context) : postCall(context)),
  };
}

function requestBody(context: HookContext): Record<string, unknown> {
  return { tool_name: context.toolName ?? '', arguments: context.toolArgs ?? {}, session_id: context.sessionId ?? '' };
}

function describe(err: unknown): string {
  if (err instanceof Error && err.name === 'AbortError') return 'timed out';
  if (err instanceof SyntaxError) return 'answer is not JSON';
  return describeError(err);
}
