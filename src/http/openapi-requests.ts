/**
 * @module http/openapi-requests
 * The OpenAPI paths of the `/v1/requests` routes (file, query, export, read, stream, decide, cancel, receipt) and the grants: a part of the document `http/openapi` serves.
 */
import { exportQuerySchema, listQuerySchema } from '../api/api-schema.js';
import { idParam, problem, queryParams, requestResponse } from './openapi-shared.js';

/** The OpenAPI path items of the `/v1/requests` routes (file, query, export, read, stream, decide, cancel, receipt) and the grants. */
export function requestPaths(): Record<string, unknown> {
  return {
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
        summary: 'Standing grants in force, newest first (admin or audit:read); all=true adds expired and revoked ones',
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
  };
}
