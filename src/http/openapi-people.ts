/**
 * @module http/openapi-people
 * The OpenAPI paths of the inbox, Web Push subscriptions, the event feed, people, their away periods and groups: a part of the document `http/openapi` serves.
 */
import { idParam, problem } from './openapi-shared.js';

/** The OpenAPI path items of the inbox, Web Push subscriptions, the event feed, people, their away periods and groups. */
export function peoplePaths(): Record<string, unknown> {
  return {
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
  };
}
