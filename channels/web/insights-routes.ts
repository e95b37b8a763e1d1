/**
 * @module channels/web/insights-routes
 * The insights pages under `/ui`: `GET /insights` (figures and charts) and `GET /insights/suggestions` (suggested
 * rules), read through the host's `insights`; a window that does not parse is the page again with a 400 naming it.
 */
import { Router, type RequestHandler } from 'express';
import { ValidationError } from '../../src/api/errors.js';
import type { SuggestionJson } from '../../src/insights/suggestions.js';
import { parseTime } from './audit-filters.js';
import { sendPage, viewerOf, type GuardContext } from './guard.js';
import { insightsPage } from './pages/insights.js';
import { messagePage } from './pages/message.js';
import { suggestionsPage } from './pages/suggestions.js';
import type { ChannelHost } from '../../src/channel/channel.js';

/** What the insights routes read: the host and what the guard needs. */
export interface InsightsRoutesContext extends GuardContext {
  gateway: ChannelHost;
}

/** The insights routes; `signedIn` is the router's sign-in guard. */
export function insightsRoutes(context: InsightsRoutesContext, signedIn: RequestHandler): Router {
  const { gateway } = context;
  const router = Router();
  router.get('/insights', signedIn, async (req, res) => {
    const viewer = viewerOf(req, res, context);
    if (!gateway.insights) {
      sendPage(res, 404, messagePage(viewer, 'No insights', 'This gateway offers no insights.'));
      return;
    }
    const { form, query, error } = insightsWindowOf(req.query as Record<string, unknown>);
    if (error) {
      sendPage(res, 400, insightsPage({ viewer, form, reports: null, error }));
      return;
    }
    const report = (by: string) =>
      gateway.insights!.report({ ...query, by, ...(by === 'day' ? { limit: '1000' } : {}) });
    try {
      const [tool, agent, person, day] = await Promise.all(['tool', 'agent', 'person', 'day'].map(report));
      sendPage(
        res,
        200,
        insightsPage({ viewer, form, reports: { tool: tool!, agent: agent!, person: person!, day: day! } }),
      );
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      sendPage(res, 400, insightsPage({ viewer, form, reports: null, error: e.message }));
    }
  });

  router.get('/insights/suggestions', signedIn, async (req, res) => {
    const viewer = viewerOf(req, res, context);
    const { form, query, error } = insightsWindowOf(req.query as Record<string, unknown>);
    const min = typeof req.query.min === 'string' ? req.query.min.trim().slice(0, 10) : '';
    const page = (status: number, suggestions: SuggestionJson[] | null, message?: string) =>
      sendPage(res, status, suggestionsPage({ viewer, form: { ...form, min }, suggestions, error: message }));
    if (!gateway.insights) return page(404, null, 'This gateway offers no insights.');
    if (error) return page(400, null, error);
    try {
      page(200, await gateway.insights.suggestions({ ...query, ...(min ? { min } : {}) }));
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      page(400, null, e.message);
    }
  });

  return router;
}

/**
 * The insights page's window from its form: days (`YYYY-MM-DD`, UTC) or times; `until` is the end of its day, so
 * "until 2026-03-03" includes the 3rd. Blank fields leave the report's defaults (the last 30 days).
 */
function insightsWindowOf(raw: Record<string, unknown>): {
  form: { since: string; until: string };
  query: { since?: string; until?: string };
  error?: string;
} {
  const text = (v: unknown) => (typeof v === 'string' ? v.trim().slice(0, 40) : '');
  const form = { since: text(raw.since), until: text(raw.until) };
  const query: { since?: string; until?: string } = {};
  for (const field of ['since', 'until'] as const) {
    if (!form[field]) continue;
    const at = parseTime(form[field]);
    if (!at) return { form, query, error: `${field}: not a date (use 2026-03-01)` };
    query[field] = (
      field === 'until' && /^\d{4}-\d{2}-\d{2}$/.test(form[field]) ? new Date(at.getTime() + 86_400_000) : at
    ).toISOString();
  }
  return { form, query };
}
