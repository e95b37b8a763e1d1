/**
 * @module http/events-routes
 * `GET /v1/events?after=<id>&limit=<n>` (`admin` or `audit:read`): the event stream as CloudEvents, oldest first,
 * for consumers that pull rather than receive webhooks. Page on with `after = next_after`.
 */
import { Router } from 'express';
import { z } from 'zod';
import { parseInput } from '../api/api-schema.js';
import type { EventStream } from '../events/stream.js';
import { requireScope } from './auth.js';

const querySchema = z.strictObject({
  after: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/** Builds the router mounted at `/v1/events`. */
export function eventsRouter(stream: EventStream): Router {
  const router = Router();
  router.get('/', requireScope('admin', 'audit:read'), async (req, res) => {
    const { after, limit } = parseInput(querySchema, req.query, 'query');
    res.json(await stream.page(after ?? 0, limit ?? 100));
  });
  return router;
}
