/**
 * @module http/audit-routes
 * `/v1/audit` (`admin` or `audit:read`): `GET /verify[?from=ISO]` walks the audit chain and the requests (200 with the
 * report; `ok: false` names the first broken link), `GET /head` publishes the newest event as a (signed) anchor.
 */
import { Router } from 'express';
import { z } from 'zod';
import { parseInput } from '../api/api-schema.js';
import type { AuditService } from '../audit/service.js';
import { auditReportJson } from '../audit/verify.js';
import { requireScope } from './auth.js';

const verifyQuerySchema = z.strictObject({
  from: z.iso
    .datetime({ offset: true })
    .transform((s) => new Date(s))
    .optional(),
});

/** Builds the router mounted at `/v1/audit`. */
export function auditRouter(audit: AuditService): Router {
  const router = Router();
  router.use(requireScope('admin', 'audit:read'));
  router.get('/verify', async (req, res) => {
    const { from } = parseInput(verifyQuerySchema, req.query, 'query');
    res.json(auditReportJson(await audit.verify(from)));
  });
  router.get('/head', async (_req, res) => {
    res.json(await audit.head());
  });
  return router;
}
