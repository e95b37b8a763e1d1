/**
 * @module http/push-routes
 * `POST|DELETE /v1/push/subscriptions`: Web Push subscriptions for a decide token bound to a person (a native app or a
 * bridge subscribing on someone's behalf). The body is a browser's `PushSubscription` JSON (`DELETE`: `{endpoint}`);
 * the subscription belongs to the token's person and decides as the token's identity.
 */
import { Router } from 'express';
import { ForbiddenError } from '../api/errors.js';
import type { PushService } from '../push/service.js';
import type { Gateway } from '../gateway/gateway.js';
import { principalOf, requireScope } from './auth.js';

/** Builds the router mounted at `/v1/push`. */
export function pushRouter(push: PushService, gateway: Gateway): Router {
  const router = Router();
  const guard = requireScope('request:decide');
  const ownerOf = (res: Parameters<typeof principalOf>[0]) => {
    const principal = principalOf(res);
    // A device belongs to one person: an admin token or one bound to nobody has nobody to notify.
    if (!principal.as)
      throw new ForbiddenError(
        `token "${principal.name}" is bound to no person (create it with --as person:<id>)`,
        'tollgate_no_identity',
      );
    const ref = gateway.directory().reference(principal.as);
    return {
      person: principal.person ?? (ref?.kind === 'person' ? ref.id : gateway.directory().personOf(principal.as)),
      account: principal.as,
    };
  };
  router.post('/subscriptions', guard, async (req, res) => {
    const { person, account } = ownerOf(res);
    const saved = await push.subscribe(person, account, req.body);
    res.status(201).json({ id: saved.id, endpoint: saved.endpoint, person: saved.person });
  });
  router.delete('/subscriptions', guard, async (req, res) => {
    const { person } = ownerOf(res);
    res.status((await push.unsubscribe(person, req.body)) ? 204 : 404).end();
  });
  return router;
}
