/**
 * @module http/grants-routes
 * `/v1/grants`: list standing grants (`admin` or `audit:read`; live ones unless `?all=true`) and revoke one
 * (`admin`; event `grant_revoked` on the request whose approval gave it).
 */
import { Router } from 'express';
import { z } from 'zod';
import { parseInput } from '../api/api-schema.js';
import { NotFoundError } from '../api/errors.js';
import type { Gateway } from '../gateway/gateway.js';
import type { Grant } from '../policy/grants.js';
import { principalOf, requireScope } from './auth.js';

const listQuerySchema = z.strictObject({
  all: z.enum(['true', 'false']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/** A grant as the API shows it. */
export function toApiGrant(g: Grant) {
  return {
    id: g.id,
    rule: g.rule,
    label: g.label,
    scope: g.scope,
    request_id: g.requestId,
    created_by: g.createdBy,
    created_at: g.createdAt.toISOString(),
    expires_at: g.expiresAt.toISOString(),
    revoked_at: g.revokedAt?.toISOString() ?? null,
    revoked_by: g.revokedBy,
    uses: g.uses,
  };
}

/** Builds the router mounted at `/v1/grants`. */
export function grantsRouter(gateway: Gateway): Router {
  const router = Router();
  router.get('/', requireScope('admin', 'audit:read'), async (req, res) => {
    const query = parseInput(listQuerySchema, req.query, 'query');
    const items = gateway.grantAdmin
      ? await gateway.grantAdmin.list({ all: query.all === 'true', limit: query.limit })
      : [];
    res.json({ items: items.map(toApiGrant) });
  });
  router.delete('/:id', requireScope('admin'), async (req, res) => {
    const id = String(req.params.id);
    const by = `api:${principalOf(res).name}`;
    const result = (await gateway.grantAdmin?.revoke(id, by)) ?? null;
    if (!result) throw new NotFoundError(`no grant with id ${id.slice(0, 80)}`);
    res.status(204).end();
  });
  return router;
}
