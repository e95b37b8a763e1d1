/**
 * @module http/insights-routes
 * `/v1/insights` (contract: ARCHITECTURE.md, "Insights"; built by `insights/`): `GET /` (`admin` or `audit:read`)
 * answers what the history says about how requests are decided; `GET /suggestions` (the same scopes) the policy rules
 * it suggests; `POST /suggestions/:id/apply {expires_in_s}` (`admin`) makes one a standing grant. And
 * `/v1/policy/simulate` (`admin`): a candidate policy, the YAML body, replayed over the history.
 */

/** The content types a candidate policy may come as (`requireJsonBody` lets them through to this route only). */
export const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain'];
/** The path of the simulation under `/v1`. */
export const SIMULATE_PATH = '/policy/simulate';
import express, { Router } from 'express';
import { ValidationError } from '../api/errors.js';
import type { Insights } from '../insights/service.js';
import { MAX_YAML_BYTES } from '../utils/yaml-bounds.js';
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

/** Builds the router of `POST /v1/policy/simulate` (mounted at `/v1`). */
export function policySimulateRouter(insights: Insights): Router {
  const router = Router();
  router.post(
    SIMULATE_PATH,
    requireScope('admin'),
    express.text({ type: YAML_TYPES, limit: MAX_YAML_BYTES }),
    async (req, res) => {
      const yaml: unknown = req.body;
      if (typeof yaml !== 'string' || !yaml.trim())
        throw new ValidationError('body: send the candidate policy as YAML (content-type application/yaml)', [
          { path: 'body', message: 'a YAML policy file' },
        ]);
      res.json(await insights.simulate(yaml, req.query));
    },
  );
  return router;
}
