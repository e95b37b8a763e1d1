/**
 * @module http/openapi-callbacks
 * The OpenAPI paths of the runtime hooks, the platform callbacks, the JWKS and the operations endpoints (no bearer token): a part of the document `http/openapi` serves.
 */
import { problem } from './openapi-shared.js';

/** The OpenAPI path items of the runtime hooks, the platform callbacks, the JWKS and the operations endpoints (no bearer token). */
export function callbackPaths(): Record<string, unknown> {
  return {
    '/v1/hooks/claude-code': {
      post: {
        summary:
          "Claude Code HTTP hook (PreToolUse / PermissionRequest / PostToolUse): files a request and answers Claude Code's hookSpecificOutput (request:create); see docs/integrations.md",
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                description: "Claude Code's hook input (session_id, tool_name, tool_input, hook_event_name, …)",
              },
            },
          },
        },
        responses: {
          200: {
            description: 'hookSpecificOutput',
            headers: {
              'tollgate-request-id': {
                description: 'The gated request (absent when the call was not gated)',
                schema: { type: 'string' },
              },
              'tollgate-request-status': {
                description: "The request's status: `pending` means the wait ended before a verdict, ask again",
                schema: { type: 'string' },
              },
            },
          },
          400: problem,
        },
      },
    },
    '/v1/hooks/agent': {
      post: {
        summary:
          "A coding agent's tool call (`tollgate hook <agent>`): files or re-attaches to a request, waits up to ?wait=S, and answers allow, deny or deferred (request:create); see docs/coding-agents.md",
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                description:
                  '{agent_kind, tool_name, tool_args, context: {session_id, cwd, repo, branch, model}, tool_call_id?}',
              },
            },
          },
        },
        responses: {
          200: { description: '{request_id, status, outcome: allow|deny|deferred, reason, updated_args, url}' },
          400: problem,
        },
      },
    },
    '/v1/hooks/pulsebot': {
      post: {
        summary:
          "PulseBot's webhook verdict protocol: files a request and answers the verdict (request:create); see docs/integrations.md",
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', description: "PulseBot's hook body" } } },
        },
        responses: { 200: { description: 'The verdict' }, 400: problem },
      },
    },
    '/channels/slack/events': {
      post: {
        security: [],
        summary:
          'Slack interactivity callbacks (signed with the Slack signing secret; present when Slack is configured)',
        responses: { 200: { description: 'Acknowledged' }, 401: { description: 'Bad signature' } },
      },
    },
    '/channels/discord/interactions': {
      post: {
        security: [],
        summary:
          "Discord interactions: button taps and PING (Ed25519-signed with the application's public key; present when Discord is configured)",
        responses: {
          200: { description: 'Interaction response: PONG, UPDATE_MESSAGE or an ephemeral message' },
          401: { description: 'Bad signature or stale timestamp' },
        },
      },
    },
    '/channels/telegram/webhook': {
      post: {
        security: [],
        summary:
          'Telegram Bot API updates: callback_query taps (X-Telegram-Bot-Api-Secret-Token must equal TELEGRAM_WEBHOOK_SECRET; present when Telegram is configured in webhook mode)',
        responses: {
          200: { description: 'Handled (a repeated update_id is acknowledged and dropped)' },
          400: { description: 'Not a Telegram update' },
          401: { description: 'Missing or wrong secret token' },
        },
      },
    },
    '/channels/teams/messages': {
      post: {
        security: [],
        summary:
          'Microsoft Teams activities: installs and Adaptive Card Action.Execute taps (Bot Framework JWT: issuer, audience = app id, JWKS signature, expiry; present when Teams is configured)',
        responses: {
          200: { description: 'Empty, or an invoke response carrying the refreshed Adaptive Card' },
          401: { description: 'Missing or invalid bearer token' },
        },
      },
    },
    '/channels/feishu/events': {
      post: {
        security: [],
        summary: 'Feishu/Lark card callbacks (signed and encrypted; present when Feishu is configured over HTTP)',
        responses: { 200: { description: 'Toast and card' }, 401: { description: 'Bad signature' } },
      },
    },
    '/.well-known/jwks.json': {
      get: {
        security: [],
        summary:
          'Public keys (JWKS, Ed25519) of verdict tokens and audit anchors: the current key first, then retired ones; see docs/audit.md',
        responses: { 200: { description: 'application/jwk-set+json: {keys: [{kty, crv, x, kid, alg, use}]}' } },
      },
    },
    '/openapi.json': {
      get: { security: [], summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1' } } },
    },
    '/': {
      get: {
        security: [],
        summary: 'To the web inbox (the address `tollgate serve` prints)',
        responses: { 302: { description: 'To /ui' } },
      },
    },
    '/ui': {
      get: {
        security: [],
        summary: 'The web inbox (HTML; its pages under /ui/ sign in with their own sessions, see docs/web.md)',
        responses: { 200: { description: 'text/html' }, 303: { description: 'To the sign-in page' } },
      },
    },
    '/healthz': { get: { security: [], summary: 'Liveness', responses: { 200: { description: 'ok' } } } },
    '/readyz': {
      get: {
        security: [],
        summary: 'Readiness: database, Redis when used, event sinks; the signing check names where the key lives',
        responses: { 200: { description: 'ready' }, 503: { description: 'not ready' } },
      },
    },
    '/metrics': {
      get: { security: [], summary: 'Prometheus metrics', responses: { 200: { description: 'text/plain' } } },
    },
  };
}
