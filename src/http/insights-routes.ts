/**
 * @module http/insights-routes
 * `/v1/insights` (`admin` or `audit:read`): `GET /` answers what the history says about how requests are decided
 * (contract: ARCHITECTURE.md, "Insights"; built by `insights/`).
 */
import { Router } from 'express';
import type { Insights } from '../insights/service.js';
import { requireScope } from './auth.js';

/** Builds the router mounted at `/v1/insights`. */
export function insightsRouter(insights: Insights): Router {
  const router = Router();
  router.get('/', requireScope('admin', 'audit:read'), async (req, res) => {
    res.json(await insights.report(req.query));
  });
  return router;
}
