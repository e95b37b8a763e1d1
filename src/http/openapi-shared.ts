/**
 * @module http/openapi-shared
 * The pieces every part of the OpenAPI document uses: a zod schema as JSON Schema, the problem answer, the request
 * answer, the `id` path parameter and query parameters from a query schema.
 */
import { z } from 'zod';
/** A zod schema as the JSON Schema of its input. */
export const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });
/** An RFC 9457 problem answer. */
export const problem = {
  description: 'Problem',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
};
/** An answer carrying one request. */
export const requestResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Request' } } },
});
/** The request's `id` path parameter. */
export const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

/** Query parameters of a zod object schema, as OpenAPI parameters. */
export function queryParams(s: z.ZodObject) {
  const json = schema(s) as { properties?: Record<string, unknown> };
  return Object.entries(json.properties ?? {}).map(([name, sch]) => ({
    name,
    in: 'query',
    required: false,
    schema: sch,
  }));
}
