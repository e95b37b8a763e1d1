/**
 * Web sign-in across replicas sharing PostgreSQL (and a private Redis queue prefix, as replicas must): a login link
 * printed by one replica signs in on another exactly once, and signing out on one ends the session on every replica.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.js';
import { queuePrefix } from '../../helpers/queue-prefix.js';
import { eventually } from '../../helpers/eventually.js';
import { formValue, WebClient } from '../web/web-client.js';
import { freshDatabase, type FreshDatabase } from './fresh-database.js';

let database: FreshDatabase;
let a: ChildGateway;
let b: ChildGateway;

beforeAll(async () => {
  database = await freshDatabase({ migrate: true });
  const env = {
    REDIS_URL: 'redis://127.0.0.1:6379',
    TOLLGATE_QUEUE_PREFIX: queuePrefix(),
    TOLLGATE_WEB_SECRET: randomBytes(32).toString('hex'),
  };
  [a, b] = await Promise.all([startChildGateway(database.url, env), startChildGateway(database.url, env)]);
});
afterAll(async () => {
  await Promise.all([a?.kill('SIGKILL'), b?.kill('SIGKILL')]);
  await database?.drop();
});

/** The one-time login link `gateway` printed at start (the line after "listening"), pointed at `on` instead. */
async function linkOf(gateway: ChildGateway, on: ChildGateway): Promise<string> {
  return eventually(() => {
    const link = /open (http:\/\/\S+\/ui\/login\?token=\S+) to sign in/.exec(gateway.output())?.[1];
    if (!link) throw new Error(`no login link in:\n${gateway.output()}`);
    return link.replace(gateway.url, on.url);
  });
}

describe('web sessions across replicas', () => {
  it('spends a login link printed by one replica on another, exactly once', async () => {
    const link = await linkOf(a, b);
    const signedIn = await new WebClient(b.url).request(link);
    expect(signedIn.path).toBe('/ui');
    expect(signedIn.text).toContain('web:admin');
    const replayed = await new WebClient(a.url).request(await linkOf(a, a));
    expect(replayed.status).toBe(401);
    expect(replayed.text).toContain('already used');
  });

  it('ends a session everywhere when it signs out on one replica', async () => {
    const onA = new WebClient(a.url);
    const inbox = await onA.request(await linkOf(b, a));
    expect(inbox.path).toBe('/ui');
    const cookie = onA.cookies.get('tollgate_session')!;
    const onB = new WebClient(b.url);
    onB.cookies.set('tollgate_session', cookie);
    expect((await onB.request('/ui', { manual: true })).status).toBe(200);

    const out = await onA.request('/ui/logout', {
      form: { _csrf: formValue(inbox.text, '_csrf') },
      headers: { origin: a.url },
    });
    expect(out.path).toBe('/ui/login');
    expect((await onB.request('/ui', { manual: true })).status).toBe(303);
  });
});
