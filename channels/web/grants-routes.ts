/**
 * @module channels/web/grants-routes
 * The standing grants page under `/ui`: `GET /grants` lists them through the host's grant admin, and
 * `POST /grants/:id/revoke` (CSRF-checked) revokes one as the signed-in viewer, then back to the list saying whether
 * this viewer revoked it or it was gone already.
 */
import { Router } from 'express';
import { identityOf, sendPage, viewerOf } from './guard.js';
import { grantsPage } from './pages/grants.js';
import { messagePage } from './pages/message.js';
import { pathId, type FormGuards, type PageContext } from './route-context.js';

/** Builds the router answering `/grants` and `/grants/:id/revoke` (mounted at `/ui`). */
export function grantsRoutes(context: PageContext & FormGuards): Router {
  const { gateway, forms, signedIn, checked } = context;
  const router = Router();

  router.get('/grants', signedIn, async (req, res) => {
    const grants = (await gateway.grantAdmin?.list()) ?? [];
    const notice = req.query.notice === 'revoked' || req.query.notice === 'gone' ? req.query.notice : undefined;
    sendPage(res, 200, grantsPage(viewerOf(req, res, context), grants, notice));
  });

  router.post('/grants/:id/revoke', signedIn, forms, checked, async (req, res) => {
    const id = pathId(req);
    const revoker = identityOf(res, context)!.account ?? identityOf(res, context)!.label;
    const grant = id ? await gateway.grantAdmin?.revoke(id, revoker) : null;
    if (!grant) {
      sendPage(res, 404, messagePage(viewerOf(req, res, context), 'Grant not found', 'No standing grant has this id.'));
      return;
    }
    res.redirect(303, `/ui/grants?notice=${grant.revokedBy === revoker ? 'revoked' : 'gone'}`);
  });

  return router;
}
