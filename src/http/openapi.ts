/**
 * @module http/openapi
 * `GET /openapi.json`, generated from the same zod schemas that validate input, so the document cannot drift. It lists
 * every route the app serves (a test compares it with the app's registered routes): the `/v1` API, the runtime hooks,
 * the platform callbacks, the operations endpoints and the web inbox's entry.
 */
import { z } from 'zod';
import {
  callSummarySchema,
  cancelSchema,
  createRequestSchema,
  decisionSchema,
  exportQuerySchema,
  listQuerySchema,
  receiptSchema,
} from '../api/api-schema.js';
import { loginLinkSchema } from './login-links-route.js';
import { verdictsSchema } from './verdict-stream.js';
import { createTokenSchema } from './tokens-routes.js';

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });
const problem = {
  description: 'Problem',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
};
const requestResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Request' } } },
});
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

/** Query parameters of a zod object schema, as OpenAPI parameters. */
function queryParams(s: z.ZodObject) {
  const json = schema(s) as { properties?: Record<string, unknown> };
  return Object.entries(json.properties ?? {}).map(([name, sch]) => ({
    name,
    in: 'query',
    required: false,
    schema: sch,
  }));
}

/** The OpenAPI 3.1 document of the HTTP API. */
export function openApiDocument(version: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'tollgate', version, description: 'Human-in-the-loop approval gateway for AI-agent tool calls.' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        CreateRequest: schema(createRequestSchema),
        Decision: schema(decisionSchema),
        Cancel: schema(cancelSchema),
        Receipt: schema(receiptSchema),
        Verdicts: schema(verdictsSchema),
        CreateToken: schema(createTokenSchema),
        LoginLink: schema(loginLinkSchema),
        Request: {
          type: 'object',
          description:
            'A confirmation request (see README: "The request as returned"); `summary` is a CallSummary or null.',
          properties: { summary: { anyOf: [{ $ref: '#/components/schemas/CallSummary' }, { type: 'null' }] } },
        },
        CallSummary: schema(callSummarySchema),
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            errors: {
              type: 'array',
              items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } },
            },
          },
        },
      },
    },
    security: [{ bearer: [] }],
    paths: {
      '/v1/requests': {
        post: {
          summary: 'File a confirmation request',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateRequest' } } },
          },
          responses: {
            201: requestResponse('Created'),
            200: requestResponse('Existing request for this idempotency_key'),
            400: problem,
            401: problem,
            409: problem,
          },
        },
        get: {
          summary: 'Audit query, newest first, cursor paging',
          parameters: queryParams(listQuerySchema),
          responses: { 200: { description: '{items, next_cursor}' }, 400: problem },
        },
      },
      '/v1/requests/export': {
        get: {
          summary: 'Stream the audit query as CSV or NDJSON',
          parameters: queryParams(exportQuerySchema),
          responses: { 200: { description: 'text/csv or application/x-ndjson' } },
        },
      },
      '/v1/requests/{id}': {
        get: {
          summary: 'Read a request; with ?wait=S (<= 55) long-poll until it is no longer pending',
          parameters: [idParam, { name: 'wait', in: 'query', schema: { type: 'number', minimum: 0, maximum: 55 } }],
          responses: { 200: requestResponse('The request'), 404: problem },
        },
      },
      '/v1/requests/{id}/events': {
        get: {
          summary: 'SSE stream of the request (text/event-stream); with Accept: application/json, its audit events',
          parameters: [idParam],
          responses: { 200: { description: 'events' }, 404: problem },
        },
      },
      '/v1/requests/verdicts': {
        post: {
          summary:
            'One SSE stream (text/event-stream) of the verdicts of many requests: event verdict, data the request, once each is final (at once for final ones; at its deadline a request is read, which expires it); ends when all are sent. The whole call is refused with 404 for any id a single read would refuse',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Verdicts' } } },
          },
          responses: { 200: { description: 'text/event-stream' }, 400: problem, 403: problem, 404: problem },
        },
      },
      '/v1/requests/{id}/decision': {
        post: {
          summary: 'Approve or deny (same authorization and compare-and-set as a tap)',
          parameters: [idParam],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Decision' } } },
          },
          responses: {
            200: requestResponse('Decided (or approval recorded toward a quorum)'),
            403: problem,
            404: problem,
            409: problem,
          },
        },
      },
      '/v1/requests/{id}/cancel': {
        post: {
          summary: 'Cancel a pending request',
          parameters: [idParam],
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Cancel' } } } },
          responses: { 200: requestResponse('Cancelled'), 404: problem, 409: problem },
        },
      },
      '/v1/grants': {
        get: {
          summary:
            'Standing grants in force, newest first (admin or audit:read); all=true adds expired and revoked ones',
          parameters: [
            { name: 'all', in: 'query', schema: { type: 'string', enum: ['true', 'false'] } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
          ],
          responses: {
            200: {
              description:
                '{items: [{id, rule, label, scope, request_id, created_by, created_at, expires_at, revoked_at, revoked_by, uses}]}',
            },
            403: problem,
          },
        },
      },
      '/v1/grants/{id}': {
        delete: {
          summary: 'Revoke a standing grant at once (admin); event grant_revoked on its origin request',
          parameters: [idParam],
          responses: { 204: { description: 'Revoked' }, 403: problem, 404: problem },
        },
      },
      '/v1/requests/{id}/receipt': {
        post: {
          summary:
            'Record that the approved tool call ran (event executed) or failed (execution_failed), by the filing token; args_sha256 is compared with the approved arguments',
          parameters: [idParam],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Receipt' } } },
          },
          responses: { 201: { description: 'The receipt event' }, 403: problem, 404: problem, 409: problem },
        },
      },
      '/v1/inbox': {
        get: {
          summary:
            'What waits for the caller (request:decide): pending requests its identity may decide and has not approved yet, newest first; an admin token names whose with as',
          parameters: [
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 } },
            {
              name: 'as',
              in: 'query',
              schema: { type: 'string' },
              description: 'Admin tokens only: the identity (person:alice, web:alice)',
            },
          ],
          responses: { 200: { description: '{as, items}' }, 400: problem, 403: problem },
        },
      },
      '/v1/push/subscriptions': {
        post: {
          summary:
            "Subscribe a device to Web Push for the token's person (request:decide, bound to a person): the body is the browser's PushSubscription JSON; the endpoint must be https; see docs/web.md",
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['endpoint', 'keys'],
                  properties: {
                    endpoint: { type: 'string' },
                    keys: { type: 'object', properties: { p256dh: { type: 'string' }, auth: { type: 'string' } } },
                  },
                },
              },
            },
          },
          responses: { 201: { description: '{id, endpoint, person}' }, 400: problem, 403: problem },
        },
        delete: {
          summary: "Remove one of the token's person's devices by {endpoint}",
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { type: 'object', required: ['endpoint'], properties: { endpoint: { type: 'string' } } },
              },
            },
          },
          responses: { 204: { description: 'Removed' }, 400: problem, 403: problem, 404: problem },
        },
      },
      '/v1/events': {
        get: {
          summary:
            'The event stream as CloudEvents 1.0, oldest first (admin or audit:read); page on with after = next_after',
          parameters: [
            {
              name: 'after',
              in: 'query',
              schema: { type: 'integer', minimum: 0 },
              description: 'Events after this id (default 0)',
            },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
          ],
          responses: { 200: { description: '{items: [CloudEvent], next_after}' }, 400: problem, 403: problem },
        },
      },
      '/v1/people': {
        get: {
          summary:
            'The people directory in force (admin or audit:read): {items: [{id, name, email, accounts, groups, unresolved}]}',
          responses: { 200: { description: '{items}' }, 403: problem },
        },
      },
      '/v1/people/{id}': {
        get: {
          summary: 'One person of the directory (admin or audit:read)',
          parameters: [idParam],
          responses: {
            200: { description: '{id, name, email, accounts, groups, unresolved}' },
            403: problem,
            404: problem,
          },
        },
      },
      '/v1/people/{id}/away': {
        get: {
          summary:
            "A person's away window in force, where it comes from (config or database) and its recorded changes; `me` for the person a decide token is bound to (else admin or audit:read)",
          parameters: [idParam],
          responses: {
            200: {
              description: '{person, away: {from, until, delegate, note} | null, source, set_by, set_at, history}',
            },
            403: problem,
            404: problem,
          },
        },
        put: {
          summary:
            'Set an away window {from, until, delegate: "person:<id>", note}: `me` with a decide token bound to a person, any id with admin; event person.away_changed',
          parameters: [idParam],
          responses: { 200: { description: 'The status in force' }, 400: problem, 403: problem, 404: problem },
        },
        delete: {
          summary: "Clear an away window (overrides the config file's too): `me` or admin; event person.away_changed",
          parameters: [idParam],
          responses: { 200: { description: 'The status in force' }, 403: problem, 404: problem },
        },
      },
      '/v1/groups': {
        get: {
          summary: 'The groups of the directory (admin or audit:read): {items: [{id, members, people}]}',
          responses: { 200: { description: '{items}' }, 403: problem },
        },
      },
      '/v1/audit/verify': {
        get: {
          summary:
            'Walk the audit chain and the requests (admin or audit:read); ok: false names the first broken link (edited, missing_or_inserted, unchained, request_mismatch); see docs/audit.md',
          parameters: [
            {
              name: 'from',
              in: 'query',
              schema: { type: 'string', format: 'date-time' },
              description: 'Start at the first event at or after this time',
            },
          ],
          responses: {
            200: {
              description:
                '{ok, events, requests, head: {event_id, hash, at}, problem: {kind, event_id, request_id, column, message} | null, chain_started}',
            },
            400: problem,
            403: problem,
          },
        },
      },
      '/v1/audit/head': {
        get: {
          summary:
            "The chain's newest event as an anchor to keep elsewhere (admin or audit:read): {event_id, hash, at, signature} (signature: a JWS over the three, by a key of /.well-known/jwks.json)",
          responses: { 200: { description: 'The anchor' }, 403: problem },
        },
      },
      '/v1/insights': {
        get: {
          summary:
            'What the history says (admin or audit:read): totals by outcome, rows by the dimension (requests, approval/edited/expired rates, time to decision p50/p90/p99 from delivery, fast approvals per person), a daily series; see docs/insights.md',
          parameters: [
            {
              name: 'since',
              in: 'query',
              schema: { type: 'string', format: 'date-time' },
              description: 'Default: 30 days before until',
            },
            {
              name: 'until',
              in: 'query',
              schema: { type: 'string', format: 'date-time' },
              description: 'Default: now (exclusive)',
            },
            {
              name: 'by',
              in: 'query',
              schema: {
                type: 'string',
                enum: ['tool', 'agent', 'agent_kind', 'person', 'group', 'channel', 'repo', 'approver', 'risk', 'day'],
              },
              description: "Default tool; agent_kind and repo are a coding agent's (null: requests without them)",
            },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
          ],
          responses: {
            200: { description: '{since, until, by, as_of, percentile_relative_error, totals, rows, series}' },
            400: problem,
            403: problem,
          },
        },
      },
      '/v1/insights/suggestions': {
        get: {
          summary:
            'Policy rules the history suggests (admin or audit:read): calls approved min times with no denial, edit or expiry; each a YAML rule with its evidence',
          parameters: [
            { name: 'since', in: 'query', schema: { type: 'string', format: 'date-time' } },
            { name: 'until', in: 'query', schema: { type: 'string', format: 'date-time' } },
            { name: 'min', in: 'query', schema: { type: 'integer', minimum: 1 }, description: 'Default 10' },
          ],
          responses: {
            200: {
              description:
                '[{id, rule, would_auto_approve, approver_minutes_saved, approvers, nearest_denied, summary, grantable}]',
            },
            400: problem,
            403: problem,
          },
        },
      },
      '/v1/insights/suggestions/{id}/apply': {
        post: {
          summary:
            'Make a fixed-value suggestion a standing grant of the rule in force (admin), audited with its evidence (grant_created)',
          parameters: [idParam],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['expires_in_s'],
                  properties: {
                    expires_in_s: { type: 'integer', minimum: 60 },
                    since: { type: 'string', format: 'date-time' },
                    until: { type: 'string', format: 'date-time' },
                    min: { type: 'integer', minimum: 1 },
                  },
                },
              },
            },
          },
          responses: {
            201: { description: '{grant, suggestion}' },
            400: problem,
            403: problem,
            404: problem,
            409: problem,
          },
        },
      },
      '/v1/policy/simulate': {
        post: {
          summary:
            'Replay a candidate policy (the YAML body) over the history (admin): what it would allow, deny or ask, what changes, and first the requests a person denied that it would allow at once',
          parameters: [
            { name: 'since', in: 'query', schema: { type: 'string', format: 'date-time' } },
            { name: 'until', in: 'query', schema: { type: 'string', format: 'date-time' } },
          ],
          requestBody: { required: true, content: { 'application/yaml': { schema: { type: 'string' } } } },
          responses: {
            200: {
              description:
                '{since, until, replayed, would, changed, denied_but_would_allow, denied_but_would_allow_total, by_rule}',
            },
            400: problem,
            403: problem,
          },
        },
      },
      '/v1/tokens': {
        post: {
          summary: 'Create a scoped token (admin); the secret is answered once',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateToken' } } },
          },
          responses: {
            201: { description: '{id, name, scopes, as, created_at, expires_at, revoked_at, secret}' },
            400: problem,
            403: problem,
          },
        },
        get: {
          summary: 'List tokens without their secrets (admin)',
          responses: { 200: { description: '{items}' }, 403: problem },
        },
      },
      '/v1/tokens/{id}': {
        delete: {
          summary: 'Revoke a token at once, on every replica (admin)',
          parameters: [idParam],
          responses: { 204: { description: 'Revoked' }, 403: problem, 404: problem },
        },
      },
      '/v1/web/login-links': {
        post: {
          summary: 'A new one-time web login link (admin), signing in as a configured web user or the login-link user',
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/LoginLink' } } } },
          responses: { 201: { description: '{url, one_time: true}' }, 400: problem, 403: problem, 409: problem },
        },
      },
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
    },
  };
}
