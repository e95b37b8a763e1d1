/**
 * @module http/away-routes
 * Away windows over the API (ARCHITECTURE.md, "Away and delegates"): `PUT|DELETE /v1/people/me/away` for the person a
 * decide token is bound to (`as: person:alice`, or one of her accounts), `PUT|DELETE /v1/people/:id/away` for an admin,
 * and `GET` of either (the window in force, where it comes from, and its recorded changes). Setting someone away lends
 * their say on requests to the delegate, so only who already decides as them (or an admin) may: a token that files
 * requests for a person (an agent's) may not.
 */
import { Router, type Response } from 'express';
import { parseInput } from '../api/api-schema.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../api/errors.js';
import type { Gateway } from '../gateway/gateway.js';
import { deciderOf } from '../people/approvers.js';
import { awayJson } from '../people/json.js';
import type { AwayChange, AwayStatus } from '../people/away-book.js';
import { awayOf, awaySchema } from '../people/config.js';
import { principalOf } from './auth.js';

/** A person's away status as the API shows it. */
export function awayStatusJson(person: string, status: AwayStatus, history: readonly AwayChange[] = []) {
  return {
    person,
    away: awayJson(status.away),
    source: status.source,
    set_by: status.setBy,
    set_at: status.at?.toISOString() ?? null,
    history: history.map((c) => ({ away: awayJson(c.away), set_by: c.setBy, at: c.at.toISOString() })),
  };
}

/**
 * Whose window a call may change: `me` is the person the caller's decide token is bound to; another id needs admin.
 * @throws ForbiddenError when the caller may not; NotFoundError for a person the directory does not have.
 */
function subjectOf(gateway: Gateway, res: Response, id: string, write: boolean): { person: string; by: string } {
  const principal = principalOf(res);
  const directory = gateway.directory();
  const admin = principal.scopes.includes('admin');
  if (id === 'me') {
    const bound =
      principal.scopes.includes('request:decide') && principal.as ? deciderOf(directory, principal.as).person : null;
    if (!bound || !directory.person(bound)) {
      throw new ForbiddenError(
        `token "${principal.name}" decides as no person of the directory: /v1/people/me/away needs a decide token bound to a person (--as person:<id>)`,
      );
    }
    return { person: bound, by: `person:${bound}` };
  }
  if (!admin && !(write ? false : principal.scopes.includes('audit:read')))
    throw new ForbiddenError(`token "${principal.name}" lacks the scope "admin"`, 'tollgate_insufficient_scope');
  if (!directory.person(id)) throw new NotFoundError(`no person with id ${id.slice(0, 80)} in the people directory`);
  return { person: id, by: `api:${principal.name}` };
}

/** Builds the router mounted at `/v1`, answering `/people/:id/away`. */
export function awayRouter(gateway: Gateway): Router {
  const router = Router();
  router.get('/people/:id/away', async (req, res) => {
    const { person } = subjectOf(gateway, res, String(req.params.id), false);
    res.json(awayStatusJson(person, await gateway.away.statusOf(person), await gateway.away.history(person)));
  });
  router.put('/people/:id/away', async (req, res) => {
    const { person, by } = subjectOf(gateway, res, String(req.params.id), true);
    if (req.body === undefined || req.body === null || typeof req.body !== 'object')
      throw new ValidationError('expected a JSON object {from, until, delegate, note}');
    const away = awayOf(parseInput(awaySchema, req.body, 'body'));
    await gateway.away.set(person, away, by);
    res.json(awayStatusJson(person, await gateway.away.statusOf(person)));
  });
  router.delete('/people/:id/away', async (req, res) => {
    const { person, by } = subjectOf(gateway, res, String(req.params.id), true);
    await gateway.away.set(person, null, by);
    res.json(awayStatusJson(person, await gateway.away.statusOf(person)));
  });
  return router;
}
