/**
 * @module channels/web/audit-routes
 * The audit pages under `/ui`: `GET /audit` (the audit query as a filtered, paged table, with the chain's head),
 * `GET /audit/verify` (walks the chain as `tollgate audit verify` does, reading only) and `GET /audit/export` (the
 * filtered rows as CSV or NDJSON, streamed). Filters that do not parse are the page again with a 400 naming them.
 */
import { Router, type RequestHandler } from 'express';
import { streamExport } from '../../src/http/export.js';
import { InvalidCursorError } from '../../src/requests/cursor.js';
import { parseAuditFilters } from './audit-filters.js';
import { sendPage, viewerOf } from './guard.js';
import { auditPage } from './pages/audit.js';
import { messagePage } from './pages/message.js';
import type { PageContext } from './route-context.js';

const AUDIT_PAGE_SIZE = 50;

/** The audit routes; `signedIn` is the router's sign-in guard. */
export function auditRoutes(context: PageContext, signedIn: RequestHandler): Router {
  const { gateway } = context;
  const router = Router();

  router.get('/audit', signedIn, async (req, res) => {
    const filters = parseAuditFilters(req.query as Record<string, unknown>, gateway.decidedBy?.bind(gateway));
    const page = filters.errors.length
      ? { items: [], nextCursor: null }
      : await gateway
          .list({ ...filters.query, limit: AUDIT_PAGE_SIZE, cursor: filters.cursor })
          .catch((error: unknown) => {
            if (error instanceof InvalidCursorError) {
              filters.errors.push({
                field: 'cursor',
                message: 'That page link is not valid any more; start from the first page.',
              });
              return { items: [], nextCursor: null };
            }
            throw error;
          });
    const chainHead = (await gateway.auditHead?.()) ?? null;
    sendPage(
      res,
      filters.errors.length ? 400 : 200,
      auditPage({
        viewer: viewerOf(req, res, context),
        filters,
        items: page.items,
        nextCursor: page.nextCursor,
        chainHead,
      }),
    );
  });

  // Reads only: walks the chain and the requests as `tollgate audit verify` does, and says what it found.
  router.get('/audit/verify', signedIn, async (req, res) => {
    const report = (await gateway.verifyAudit?.()) ?? null;
    const viewer = viewerOf(req, res, context);
    if (!report)
      sendPage(res, 404, messagePage(viewer, 'No audit chain', 'This gateway keeps no hash-chained audit trail.'));
    else if (report.ok)
      sendPage(
        res,
        200,
        messagePage(
          viewer,
          'Audit trail intact',
          `All ${report.events} events are chained as written and every request agrees with its events.`,
        ),
      );
    else sendPage(res, 200, messagePage(viewer, 'Audit trail broken', report.problem ?? 'The chain does not verify.'));
  });

  router.get('/audit/export', signedIn, async (req, res) => {
    const filters = parseAuditFilters(req.query as Record<string, unknown>, gateway.decidedBy?.bind(gateway));
    if (filters.errors.length) {
      sendPage(
        res,
        400,
        messagePage(
          viewerOf(req, res, context),
          'Export not possible',
          filters.errors.map((e) => e.message).join('; '),
        ),
      );
      return;
    }
    const format = req.query.format === 'ndjson' ? 'ndjson' : 'csv';
    await streamExport(res, gateway.exportPages(filters.query, format), format);
  });

  return router;
}
