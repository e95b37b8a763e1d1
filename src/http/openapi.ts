/**
 * @module http/openapi
 * `GET /openapi.json`, generated from the same zod schemas that validate input, so the document cannot drift.
 */
import { z } from 'zod';
import { cancelSchema, createRequestSchema, decisionSchema, exportQuerySchema, listQuerySchema } from '../api-schema.js';

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });
const problem = { description: 'Problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
const requestResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Request' } } } });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

/** Query parameters of a zod object schema, as OpenAPI parameters. */
function queryParams(s: z.ZodObject) {
  const json = schema(s) as { properties?: Record<string, unknown> };
  return Object.entries(json.properties ?? {}).map(([name, sch]) => ({ name, in: 'query', required: false, schema: sch }));
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
        Request: { type: 'object', description: 'A confirmation request (see README: "The request as returned").' },
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail'],
          properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' }, errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } } },
        },
      },
    },
    security: [{ bearer: [] }],
    paths: {
      '/v1/requests': {
        post: {
          summary: 'File a confirmation request',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateRequest' } } } },
          responses: { 201: requestResponse('Created'), 200: requestResponse('Existing request for this idempotency_key'), 400: problem, 401: problem, 409: problem },
        },
        get: { summary: 'Audit query, newest first, cursor paging', parameters: queryParams(listQuerySchema), responses: { 200: { description: '{items, next_cursor}' }, 400: problem } },
      },
      '/v1/requests/export': { get: { summary: 'Stream the audit query as CSV or NDJSON', parameters: queryParams(exportQuerySchema), responses: { 200: { description: 'text/csv or application/x-ndjson' } } } },
      '/v1/requests/{id}': {
        get: {
          summary: 'Read a request; with ?wait=S (<= 55) long-poll until it is no longer pending',
          parameters: [idParam, { name: 'wait', in: 'query', schema: { type: 'number', minimum: 0, maximum: 55 } }],
          responses: { 200: requestResponse('The request'), 404: problem },
        },
      },
      '/v1/requests/{id}/events': { get: { summary: 'SSE stream of the request (text/event-stream); with Accept: application/json, its audit events', parameters: [idParam], responses: { 200: { description: 'events' }, 404: problem } } },
      '/v1/requests/{id}/decision': {
        post: {
          summary: 'Approve or deny (same authorization and compare-and-set as a tap)',
          parameters: [idParam],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Decision' } } } },
          responses: { 200: requestResponse('Decided (or approval recorded toward a quorum)'), 403: problem, 404: problem, 409: problem },
        },
      },
      '/v1/requests/{id}/cancel': {
        post: { summary: 'Cancel a pending request', parameters: [idParam], requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Cancel' } } } }, responses: { 200: requestResponse('Cancelled'), 404: problem, 409: problem } },
      },
      '/healthz': { get: { security: [], summary: 'Liveness', responses: { 200: { description: 'ok' } } } },
      '/readyz': { get: { security: [], summary: 'Readiness: database, and Redis when used', responses: { 200: { description: 'ready' }, 503: { description: 'not ready' } } } },
      '/metrics': { get: { security: [], summary: 'Prometheus metrics', responses: { 200: { description: 'text/plain' } } } },
    },
  };
}
