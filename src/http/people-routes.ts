/**
 * @module http/people-routes
 * The people directory, read-only (`admin` or `audit:read`): `GET /v1/people`, `GET /v1/people/:id`,
 * `GET /v1/groups`. The config file is the source; these show what is in force (after the last reload).
 */
import { Router } from 'express';
import { NotFoundError } from '../api/errors.js';
import type { Gateway } from '../gateway/gateway.js';
import { groupJson, personJson } from '../people/json.js';
import { requireScope } from './auth.js';

/** Builds the router mounted at `/v1`, answering `/people…` and `/groups`. */
export function peopleRouter(gateway: Gateway): Router {
  const router = Router();
  const guard = requireScope('admin', 'audit:read');
  router.get('/people', guard, (_req, res) => {
    const directory = gateway.directory();
    res.json({ items: directory.people().map((p) => personJson(directory, p)) });
  });
  router.get('/people/:id', guard, (req, res) => {
    const directory = gateway.directory();
    const person = directory.person(String(req.params.id));
    if (!person)
      throw new NotFoundError(`no person with id ${String(req.params.id).slice(0, 80)} in the people directory`);
    res.json(personJson(directory, person));
  });
  router.get('/groups', guard, (_req, res) => {
    res.json({ items: gateway.directory().groups().map(groupJson) });
  });
  return router;
}
