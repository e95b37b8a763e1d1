/**
 * @module http/inbox-routes
 * `GET /v1/inbox[?limit=N][&as=ID]`: what waits for the caller — pending requests its identity may decide and has not
 * approved yet, newest first. A decide token answers for its bound identity (`as: person:alice` covers every account
 * of alice); an admin token names one with `as`. What `tollgate pending` and `tollgate watch` read.
 */
import { Router } from 'express';
import { z } from 'zod';
import { parseInput } from '../api/api-schema.js';
import { ValidationError } from '../api/errors.js';
import type { Gateway } from '../gateway/gateway.js';
import { toApiRequest } from '../requests/serialize.js';
import { principalOf, requireScope } from './auth.js';

const querySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  as: z.string().min(3).max(200).optional(),
});

/** Builds the router mounted at `/v1/inbox`. */
export function inboxRouter(gateway: Gateway): Router {
  const router = Router();
  router.get('/', requireScope('request:decide'), async (req, res) => {
    const query = parseInput(querySchema, req.query, 'query');
    const principal = principalOf(res);
    const admin = principal.scopes.includes('admin');
    // Only an admin token may look at someone else's inbox; a decide token is its bound identity.
    const who = admin ? query.as : principal.as;
    if (!who) {
      throw admin
        ? new ValidationError(
            'as: an admin token has no identity of its own: name whose inbox to show (as=person:alice)',
            [{ path: 'as', message: 'required' }],
          )
        : new ValidationError('this token is bound to no identity (create it with --as)');
    }
    if (!admin && query.as && query.as !== principal.as)
      throw new ValidationError(`as: this token answers only for ${principal.as}`, [
        { path: 'as', message: 'not this token’s identity' },
      ]);
    const items = await gateway.waitingFor(who, query.limit ?? 100);
    res.json({ as: who, items: items.map(toApiRequest) });
  });
  return router;
}
