/**
 * @module http/tokens-routes
 * `/v1/tokens` (admin only): create a scoped token (the secret is answered once), list tokens without secrets, revoke.
 * A token bound `as: person:<id>` is refused unless the people directory knows that person: bound to nobody, it would
 * be created and then decide nothing and see an empty inbox (without a directory every account is a person of its
 * own, so `person:alice` is not `web:alice`), which a newcomer cannot tell from "nothing is waiting".
 */
import { Router } from 'express';
import { z } from 'zod';
import { approverId, parseInput } from '../api/api-schema.js';
import { NotFoundError } from '../api/errors.js';
import { validationError } from '../api/validation.js';
import { NO_DIRECTORY } from '../people/no-directory.js';
import type { Directory } from '../people/types.js';
import { isReservedTokenName, RESERVED_NAME_MESSAGE, SCOPES } from '../tokens/scopes.js';
import type { ApiToken, TokenStore } from '../tokens/token-store.js';
import { requireScope } from './auth.js';

/** `POST /v1/tokens` body. */
export const createTokenSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9._@-]{1,100}$/, 'letters, digits, ".", "_", "@" and "-" only (1–100)')
      .refine((name) => !isReservedTokenName(name), { message: RESERVED_NAME_MESSAGE }),
    scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length),
    as: approverId.optional(),
    /** The person the token speaks for (self-approval compares it); a token bound `as: person:<id>` speaks for that person. */
    person: z
      .string()
      .regex(/^[a-z0-9._-]{1,100}$/, 'a person id: lower-case letters, digits, ".", "_" and "-"')
      .optional(),
    expires_in_s: z
      .number()
      .int()
      .positive()
      .max(10 * 365 * 24 * 3600)
      .optional(),
  })
  .refine((t) => !t.scopes.includes('request:decide') || t.as !== undefined, {
    path: ['as'],
    message: 'a request:decide token needs the approver identity it decides as',
  })
  .refine((t) => t.as === undefined || t.scopes.includes('request:decide'), {
    path: ['as'],
    message: '"as" goes with the request:decide scope only',
  });

/** A token as the API shows it: never its secret. */
function toApiToken(t: ApiToken) {
  return {
    id: t.id,
    name: t.name,
    scopes: t.scopes,
    as: t.as,
    person: t.person,
    created_at: t.createdAt.toISOString(),
    expires_at: t.expiresAt?.toISOString() ?? null,
    revoked_at: t.revokedAt?.toISOString() ?? null,
  };
}

/** Why `as` cannot be bound in `directory`, or null when it can: a `person:` the directory does not know. */
function unknownPerson(as: string | undefined, directory: Directory): string | null {
  if (!as?.startsWith('person:')) return null;
  const id = as.slice('person:'.length);
  if (directory.person(id)) return null;
  const account = `web:${id}`;
  return directory.people().length === 0
    ? `${as} names no one: this gateway has no people directory (no \`people:\` in its config file), so a person has no accounts to decide with; bind the token to an account instead (as: ${account}, \`--as ${account}\`), or list ${id} under \`people:\` (docs/policy.md) and restart`
    : `${as} names no one: the people directory has no person "${id}"; list them under \`people:\` in the config file, or bind the token to an account (as: ${account})`;
}

/** Builds the router mounted at `/v1/tokens`; `directory` is the people directory in force (a reload swaps it). */
export function tokensRouter(
  tokens: TokenStore,
  now: () => number = Date.now,
  directory: () => Directory = () => NO_DIRECTORY,
): Router {
  const router = Router();
  router.use(requireScope('admin'));
  router.post('/', async (req, res) => {
    const body = parseInput(createTokenSchema, req.body ?? {}, 'body');
    const problem = unknownPerson(body.as, directory());
    if (problem) throw validationError([{ path: 'as', message: problem }]);
    const at = new Date(now());
    const expiresAt = body.expires_in_s === undefined ? null : new Date(at.getTime() + body.expires_in_s * 1000);
    const person = body.person ?? (body.as?.startsWith('person:') ? body.as.slice('person:'.length) : null);
    const { token, secret } = await tokens.create(
      { name: body.name, scopes: body.scopes, as: body.as ?? null, person, expiresAt },
      at,
    );
    res
      .status(201)
      .location(`/v1/tokens/${token.id}`)
      .json({ ...toApiToken(token), secret });
  });
  router.get('/', async (_req, res) => {
    res.json({ items: (await tokens.list()).map(toApiToken) });
  });
  router.delete('/:id', async (req, res) => {
    const id = String(req.params.id);
    if (!/^[0-9a-f-]{36}$/i.test(id)) throw new NotFoundError(`no token with id ${id.slice(0, 80)}`);
    await tokens.revoke(id.toLowerCase(), new Date(now()));
    res.status(204).end();
  });
  return router;
}
