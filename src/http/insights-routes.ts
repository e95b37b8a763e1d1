/**
 * @module http/insights-routes
 * `/v1/insights` (contract: ARCHITECTURE.md, "Insights"; built by `insights/`): `GET /` (`admin` or `audit:read`)
 * answers what the history says about how requests are decided; `GET /suggestions` (the same scopes) the policy rules
 * it suggests; `POST /suggestions/:id/apply {expires_in_s}` (`admin`) makes one a standing grant.
 */
import { Router } from 'express';
import type { Insights } from '../insights/service.js';
import { principalOf, requireScope } from './auth.js';

/** Builds the router mounted at `/v1/insights`. */
export function insightsRouter(insights: Insights): Router {
  const router = Router();
  const read = requireScope('admin', 'audit:read');
  router.get('/', read, async (req, res) => {
    res.json(await insights.report(req.query));
  });
  router.get('/suggestions', read, async (req, res) => {
    res.json(await insights.suggestions(req.query));
  });
  router.post('/suggestions/:id/apply', requireScope('admin'), async (req, res) => {
    res.status(201).json(await insights.apply(String(req.params.id), req.body, `api:${principalOf(res).name}`));
  });
  return router;
}
