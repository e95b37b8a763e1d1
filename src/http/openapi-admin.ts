/**
 * @module http/openapi-admin
 * The OpenAPI paths of the audit chain, insights and suggestions, policy simulation, tokens and login links: a part of the document `http/openapi` serves.
 */
import { idParam, problem } from './openapi-shared.js';

/** The OpenAPI path items of the audit chain, insights and suggestions, policy simulation, tokens and login links. */
export function adminPaths(): Record<string, unknown> {
  return {
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
  };
}
