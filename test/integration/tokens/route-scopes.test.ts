import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../../src/tokens/scopes.js';
import { registeredRoutes } from '../../helpers/routes.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * Every `/v1` route and the scopes that open it (`admin` opens all). A route registered on the app but missing here
 * fails the test: a new route cannot ship without saying who may call it. This is also the list for the docs.
 */
const ROUTE_SCOPES: Record<string, Scope[]> = {
  'POST /v1/requests': ['request:create'],
  'GET /v1/requests': ['audit:read'],
  'GET /v1/requests/export': ['audit:read'],
  'GET /v1/requests/:id': ['request:read', 'audit:read', 'request:decide'],
  'GET /v1/requests/:id/events': ['request:read', 'audit:read', 'request:decide'],
  'POST /v1/requests/verdicts': ['request:read', 'audit:read', 'request:decide'],
  'POST /v1/requests/:id/decision': ['request:decide'],
  'POST /v1/requests/:id/receipt': ['request:create'],
  'POST /v1/requests/:id/cancel': ['request:cancel'],
  'GET /v1/tokens': ['admin'],
  'POST /v1/tokens': ['admin'],
  'DELETE /v1/tokens/:id': ['admin'],
  'GET /v1/grants': ['audit:read'],
  'DELETE /v1/grants/:id': ['admin'],
  'POST /v1/hooks/claude-code': ['request:create'],
  'POST /v1/hooks/agent': ['request:create'],
  'POST /v1/hooks/pulsebot': ['request:create'],
  'POST /v1/web/login-links': ['admin'],
  'GET /v1/audit/verify': ['audit:read'],
  'GET /v1/people': ['audit:read'],
  'GET /v1/events': ['audit:read'],
  'GET /v1/inbox': ['request:decide'],
  'GET /v1/people/:id': ['audit:read'],
  'GET /v1/groups': ['audit:read'],
  'GET /v1/audit/head': ['audit:read'],
  // Another person's away window; `me` instead takes a decide token bound to a person (test/integration/people/away.test.ts).
  'GET /v1/people/:id/away': ['audit:read'],
  'PUT /v1/people/:id/away': ['admin'],
  'DELETE /v1/people/:id/away': ['admin'],
  // A device of the person the decide token is bound to (docs/web.md, "Install and notifications").
  'POST /v1/push/subscriptions': ['request:decide'],
  'DELETE /v1/push/subscriptions': ['request:decide'],
  // What the history says reads like the audit; acting on it (a grant, a replay of a candidate policy) is an admin's.
  'GET /v1/insights': ['audit:read'],
  'GET /v1/insights/suggestions': ['audit:read'],
  'POST /v1/insights/suggestions/:id/apply': ['admin'],
  'POST /v1/policy/simulate': ['admin'],
};

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

describe('every /v1 route is guarded by a scope', () => {
  it('lists every route the app registers under /v1 in the route → scope table', () => {
    const app = t.server.app;
    const routes = registeredRoutes(app).filter((r) => r.split(' ')[1]!.startsWith('/v1/'));
    expect(routes.length).toBeGreaterThanOrEqual(Object.keys(ROUTE_SCOPES).length);
    const unlisted = routes.filter((r) => !(r in ROUTE_SCOPES));
    expect(
      unlisted,
      'add these routes to ROUTE_SCOPES with the scope that guards them (and guard them with requireScope)',
    ).toEqual([]);
    const gone = Object.keys(ROUTE_SCOPES).filter((r) => !routes.includes(r));
    expect(gone, 'routes in the table the app no longer registers').toEqual([]);
  });

  it('refuses every route to each token without its scope, and lets the ones with it past the scope check', async () => {
    const secrets = {} as Record<Scope, string>;
    for (const scope of SCOPES) {
      const res = await t.api('/v1/tokens', {
        body: {
          name: `only-${scope.replace(':', '-')}`,
          scopes: [scope],
          ...(scope === 'request:decide' ? { as: 'web:alice' } : {}),
        },
      });
      expect(res.status).toBe(201);
      secrets[scope] = ((await res.json()) as { secret: string }).secret;
    }
    const results: string[] = [];
    for (const [route, scopes] of Object.entries(ROUTE_SCOPES)) {
      const [method, template] = route.split(' ') as [string, string];
      // An unknown id: allowed callers get a 4xx from the handler (never a stream or a side effect).
      const path = template.replace(':id', randomUUID());
      for (const scope of SCOPES) {
        const res = await fetch(`${t.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${secrets[scope]}`,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          body: method === 'POST' ? '{}' : undefined,
        });
        const body = await res.text();
        const refusedForScope = res.status === 403 && body.includes('tollgate_insufficient_scope');
        const allowed = scope === 'admin' || scopes.includes(scope);
        results.push(`${route} ${scope}: ${refusedForScope ? 'refused' : 'passed'}`);
        expect(refusedForScope, `${route} with a ${scope} token answered ${res.status} ${body.slice(0, 200)}`).toBe(
          !allowed,
        );
      }
    }
    expect(results).toHaveLength(Object.keys(ROUTE_SCOPES).length * SCOPES.length);
  });
});
