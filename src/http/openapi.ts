/**
 * @module http/openapi
 * `GET /openapi.json`, generated from the same zod schemas that validate input, so the document cannot drift. It lists
 * every route the app serves (a test compares it with the app's registered routes): the `/v1` API, the runtime hooks,
 * the platform callbacks, the operations endpoints and the web inbox's entry.
 */
import {
  callSummarySchema,
  cancelSchema,
  createRequestSchema,
  decisionSchema,
  receiptSchema,
} from '../api/api-schema.js';
import { loginLinkSchema } from './login-links-route.js';
import { verdictsSchema } from './verdict-stream.js';
import { createTokenSchema } from './tokens-routes.js';
import { adminPaths } from './openapi-admin.js';
import { callbackPaths } from './openapi-callbacks.js';
import { peoplePaths } from './openapi-people.js';
import { requestPaths } from './openapi-requests.js';
import { schema } from './openapi-shared.js';

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
      ...requestPaths(),
      ...peoplePaths(),
      ...adminPaths(),
      ...callbackPaths(),
    },
  };
}
