/**
 * @module integrations/plugin
 * The hook routes runtimes call instead of the request API: `POST /v1/hooks/claude-code` (Claude Code HTTP hooks:
 * PreToolUse, PermissionRequest, and PostToolUse receipts; `tollgate claude-hook` forwards command hooks here too),
 * `POST /v1/hooks/agent` (every other coding agent's `tollgate hook <agent>`, see `agent-hook.ts`) and
 * `POST /v1/hooks/pulsebot` (PulseBot's webhook hook). Both file or re-attach to a request, hold the HTTP call
 * until a verdict or a bounded wait (`?wait=S`), and answer in the runtime's own format. Plugins mount before the
 * core's `/v1` routes, so these routes apply the bearer auth and JSON parser themselves.
 * The Claude Code route, on every gated tool call, is also answered on the lean path (`http/lean-routes`) for plain
 * JSON bodies, through the same handler: express's router cost more CPU per call than the rest of the route's HTTP.
 */
import { principalOf } from '../http/auth.js';
import { Router, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { parseInput } from '../api/api-schema.js';
import { ConflictError } from '../api/errors.js';
import type { HttpPlugin } from '../http/app.js';
import type { LeanPost } from '../http/lean-routes.js';
import { sendJson } from '../http/requests-routes.js';
import type { Gateway } from '../gateway/gateway.js';
import { sendProblem } from '../http/problem.js';
import { toApiRequest } from '../requests/serialize.js';
import { fileOrAttach, newestMatch, newRequestInput } from './attach.js';
import { gateSameCall, requestLink } from './same-call.js';
import { waitWhileConnected } from '../http/long-poll.js';
import {
  CLAUDE_CODE_AGENT_ID,
  claudeCodeRequest,
  claudeHookDeny,
  claudeSameCallOutput,
  decisionEventOf,
  parseClaudeHookInput,
} from './claude-code.js';
import { CLAUDE_HOOK_DEFAULT_WAIT_S, CLAUDE_HOOK_HEADERS, isPostToolEvent } from './claude-code-events.js';
import { recordClaudeReceipt } from './claude-code-receipt.js';
import {
  parsePulsebotHook,
  postCallDetail,
  PULSEBOT_AGENT_ID,
  pulsebotIdempotencyKey,
  pulsebotRequest,
  pulsebotVerdict,
} from './pulsebot.js';
import { parseRequestOptions, rawOptionsFromQuery } from './request-options.js';
import { answerAgentCall } from './agent-hook.js';
import { AGENT_HOOK_PATH } from './agent-hook-wire.js';
import type { SharedMarks } from '../contracts/shared-marks.js';

/** Options of {@link integrationsPlugin}. */
export interface IntegrationsPluginOptions {
  /** Longest `?wait=` honoured, in seconds (default 540: under Claude Code's 10-minute hook limit). */
  maxWaitS?: number;
  /** Wait when the URL names none, in seconds (default 540). */
  defaultWaitS?: number;
  /** How long a PulseBot verdict that arrived after the hook gave up stays deliverable to a retry (default 600 s; 0 = off). */
  pulsebotLateWindowS?: number;
  /** Marks shared by every replica (PostgreSQL), so a call re-asked on two replicas at once files one request. */
  marks?: SharedMarks;
  /** The gateway's public URL, for the links a deferred answer gives (else the URL the hook called). */
  publicUrl?: string | null;
}

const waitSchema = z.coerce.number().min(0, 'wait must be 0 or more seconds');

/**
 * The runtime integrations as an HTTP plugin.
 * @example createServer({ config, plugins: [integrationsPlugin()] })
 */
export function integrationsPlugin(options: IntegrationsPluginOptions = {}): HttpPlugin {
  const maxWaitS = options.maxWaitS ?? CLAUDE_HOOK_DEFAULT_WAIT_S;
  const defaultWaitS = Math.min(options.defaultWaitS ?? CLAUDE_HOOK_DEFAULT_WAIT_S, maxWaitS);
  const lateWindowMs = (options.pulsebotLateWindowS ?? 600) * 1000;

  /** `?wait=S` plus the request options (`channel`, `approver`, `expires`, `on_timeout`, `agent_id`). */
  const hookQuery = (query: Record<string, unknown>) => {
    const { wait, ...rest } = query;
    const waitS =
      wait === undefined
        ? defaultWaitS
        : Math.min(parseInput(waitSchema, Array.isArray(wait) ? wait.at(-1) : wait, 'wait'), maxWaitS);
    const unknown = Object.keys(rest).filter(
      (k) => !['channel', 'approver', 'expires', 'on_timeout', 'agent_id'].includes(k),
    );
    if (unknown.length) parseInput(z.strictObject({}), Object.fromEntries(unknown.map((k) => [k, true])), 'query');
    return { waitMs: waitS * 1000, options: parseRequestOptions(rawOptionsFromQuery(rest)) };
  };

  /** `POST /v1/hooks/claude-code`, on the lean path and in express alike. */
  const claudeCode = (gateway: Gateway, logger: Logger): LeanPost => ({
    scopes: ['request:create'],
    async handle(principal, body, query, res) {
      const { waitMs, options: requestOptions } = hookQuery(query);
      const input = parseClaudeHookInput(body);
      if (isPostToolEvent(input)) {
        // PostToolUse / PostToolUseFailure: a receipt for the gated call, and an empty answer (no decision to make).
        const requestId = await recordClaudeReceipt(gateway, input, principal, requestOptions.agentId);
        logger.debug({ requestId }, 'claude-code post-tool receipt');
        return { status: 200, body: {} };
      }
      const event = decisionEventOf(input);
      const filed = { ...newRequestInput(claudeCodeRequest(input, requestOptions)), filedBy: principal.name };
      let outcome;
      try {
        const call = {
          input: { ...filed, agentId: filed.agentId ?? CLAUDE_CODE_AGENT_ID },
          agentKind: 'claude',
          cwd: input.cwd ?? null,
        };
        outcome = await gateSameCall({ gateway, shared: options.marks }, call, `token:${principal.name}`, waitMs, res);
      } catch (error) {
        // A non-2xx answer would let Claude Code run the tool anyway: a reused tool_use_id is a deny, not a 409.
        if (!(error instanceof ConflictError)) throw error;
        return { status: 200, body: claudeHookDeny(`tollgate refused this call: ${error.message}`, event) };
      }
      if (!outcome) return null;
      const { request } = outcome;
      // The status tells `tollgate claude-hook` a deferred deny from a verdict, so it can ask again while time is left.
      const headers = { [CLAUDE_HOOK_HEADERS.requestId]: request.id, [CLAUDE_HOOK_HEADERS.status]: request.status };
      return {
        status: 200,
        body: claudeSameCallOutput(outcome, event, requestLink(options.publicUrl, res, request)),
        headers,
      };
    },
  });

  /** `POST /v1/hooks/agent` (`tollgate hook <agent>`), on the lean path and in express alike. */
  const agent = (gateway: Gateway): LeanPost => ({
    scopes: ['request:create'],
    async handle(principal, body, query, res) {
      const { waitMs, options: requestOptions } = hookQuery(query);
      const answer = await answerAgentCall(
        { gateway, shared: options.marks, publicUrl: options.publicUrl },
        principal,
        body,
        waitMs,
        requestOptions,
        res,
      );
      return answer && { status: 200, body: answer };
    },
  });

  return {
    name: 'integrations',
    leanPosts: ({ gateway, logger }) => ({
      '/v1/hooks/claude-code': claudeCode(gateway, logger),
      [AGENT_HOOK_PATH]: agent(gateway),
    }),
    mount(app, { gateway, auth, json, logger }) {
      const router = Router();
      const claude = claudeCode(gateway, logger);
      const agents = agent(gateway);

      router.post('/agent', async (req, res) => {
        const reply = await agents.handle(principalOf(res), req.body, req.query as Record<string, unknown>, res);
        if (reply && !res.destroyed) sendJson(res, reply);
      });

      router.post('/claude-code', async (req, res) => {
        const reply = await claude.handle(principalOf(res), req.body, req.query as Record<string, unknown>, res);
        if (reply && !res.destroyed) sendJson(res, reply);
      });

      router.post('/pulsebot', async (req, res) => {
        const { waitMs, options: requestOptions } = hookQuery(req.query as Record<string, unknown>);
        const body = parsePulsebotHook(req.body);
        const agentId = requestOptions.agentId ?? PULSEBOT_AGENT_ID;
        if (body.event === 'post_call') {
          const target = body.tool_call_id
            ? await gateway.getByIdempotencyKey(pulsebotIdempotencyKey(body.tool_call_id), principalOf(res).name)
            : await newestMatch(
                gateway,
                {
                  agentId,
                  sessionId: body.session_id || undefined,
                  filedBy: principalOf(res).name,
                  toolName: body.tool_name,
                  toolArgs: body.arguments,
                },
                true,
              );
          if (!target) {
            res.json({ recorded: false, detail: 'no request matches this call (session, tool and arguments)' });
            return;
          }
          await gateway.note(target.id, {
            type: 'post_call',
            actor: `${agentId}`,
            channel: null,
            detail: postCallDetail(body),
            at: new Date(gateway.clock.now()),
          });
          logger.debug({ requestId: target.id }, 'pulsebot post_call recorded');
          res.json({ recorded: true, request_id: target.id });
          return;
        }
        let request;
        try {
          request = await fileOrAttach(
            gateway,
            { ...newRequestInput(pulsebotRequest(body, requestOptions)), filedBy: principalOf(res).name },
            { lateWindowMs, shared: options.marks },
          );
        } catch (error) {
          // PulseBot approves on errors when fail_open is set: answer a deny instead of a 409.
          if (!(error instanceof ConflictError)) throw error;
          res.json({
            verdict: 'deny',
            reasoning: `tollgate refused this call: ${error.message}`,
            modified_arguments: {},
          });
          return;
        }
        const final = await waitWhileConnected(gateway, request, waitMs, res);
        if (!res.destroyed) res.json(pulsebotVerdict(toApiRequest(final)));
      });

      app.use('/v1/hooks', auth, json, requireJson, router);
    },
  };
}

/** A body that is not JSON is a 415 naming the fix, not a confusing "field required". */
const requireJson: RequestHandler = (req, res, next) => {
  if (req.method === 'POST' && !req.is(['application/json', 'application/*+json'])) {
    sendProblem(res, 415, 'send the hook body as application/json', { code: 'unsupported_media_type' });
    return;
  }
  next();
};
