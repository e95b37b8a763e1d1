/**
 * @module channels/web/away-routes
 * `/ui/away`: the signed-in person's away window (page `pages/away.ts`), set and cleared through CSRF-checked forms
 * as the API's `PUT|DELETE /v1/people/me/away` does, recorded as set by `person:<id>`. Only a person of the directory
 * has one: a local user or a provider account the directory does not know is told so.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { ChannelHost } from '../../src/channel/channel.js';
import { ValidationError } from '../../src/api/errors.js';
import { awayOf, awaySchema } from '../../src/people/config.js';
import { parseInput } from '../../src/api/validation.js';
import { identityOf, sendPage, viewerOf, type GuardContext } from './guard.js';
import { awayPage, type AwayPageOptions } from './pages/away.js';
import { messagePage } from './pages/message.js';

/** What the away routes need besides the guard: the host's away windows and the middleware of the other routes. */
export interface AwayRoutesContext extends GuardContext {
  gateway: Pick<ChannelHost, 'away'>;
  forms: RequestHandler;
  signedIn: RequestHandler;
  checked: RequestHandler;
}

const NOTICES = {
  set: 'Saved: requests waiting for you now wait for who stands in for you too.',
  back: 'Welcome back: requests wait for you alone again.',
} as const;

/** Builds the router answering `/away` and `/away/clear` (mounted at `/ui`). */
export function awayRoutes(context: AwayRoutesContext): Router {
  const router = Router();
  const { away } = context.gateway;
  /** The signed-in person of the directory, or null after answering why there is none. */
  const personOf = (req: Request, res: Response): string | null => {
    const person = identityOf(res, context)?.person ?? null;
    if (person && away && context.directory?.()?.person(person)) return person;
    sendPage(
      res,
      404,
      messagePage(
        viewerOf(req, res, context),
        'No away status',
        away
          ? 'Only a person of the people directory has an away status; you are signed in as an account of your own.'
          : 'This gateway keeps no away windows.',
      ),
    );
    return null;
  };
  const page = async (
    req: Request,
    res: Response,
    person: string,
    status: number,
    extra: Pick<AwayPageOptions, 'notice' | 'form'> = {},
  ) => {
    const current = await away!.statusOf(person);
    const people = (context.directory?.()?.people() ?? [])
      .filter((p) => p.id !== person)
      .map((p) => ({ id: p.id, name: p.name }));
    sendPage(res, status, awayPage({ viewer: viewerOf(req, res, context), person, ...current, people, ...extra }));
  };

  router.get('/away', context.signedIn, async (req, res) => {
    const person = personOf(req, res);
    if (!person) return;
    const notice =
      req.query.notice === 'set' || req.query.notice === 'back'
        ? { tone: 'good' as const, text: NOTICES[req.query.notice] }
        : undefined;
    await page(req, res, person, 200, { notice });
  });

  router.post('/away', context.signedIn, context.forms, context.checked, async (req, res) => {
    const person = personOf(req, res);
    if (!person) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const text = (name: string) => (typeof body[name] === 'string' ? body[name].trim() : '');
    const form = { from: text('from'), until: text('until'), delegate: text('delegate'), note: text('note') };
    try {
      const parsed = parseInput(
        awaySchema,
        {
          from: form.from,
          until: form.until,
          ...(form.delegate ? { delegate: `person:${form.delegate}` } : {}),
          ...(form.note ? { note: form.note } : {}),
        },
        'form',
      );
      await away!.set(person, awayOf(parsed), `person:${person}`);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const problems = error.errors?.map((p) => `${p.path}: ${p.message}`).join('; ') ?? error.message;
      await page(req, res, person, 400, {
        form,
        notice: { tone: 'bad', text: `Not saved — ${problems}. Nothing was changed.` },
      });
      return;
    }
    res.redirect(303, '/ui/away?notice=set');
  });

  router.post('/away/clear', context.signedIn, context.forms, context.checked, async (req, res) => {
    const person = personOf(req, res);
    if (!person) return;
    await away!.set(person, null, `person:${person}`);
    res.redirect(303, '/ui/away?notice=back');
  });
  return router;
}
