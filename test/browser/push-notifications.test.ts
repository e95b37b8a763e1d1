/**
 * The inbox's service worker in real headless Chromium. Chromium without network cannot subscribe through its real
 * push service, so the test plays the browser's push service: the gateway pushes to the fake push service (which
 * checks the VAPID JWT and decrypts the message with the device's keys), and the decrypted message is handed to the
 * service worker through the DevTools protocol (`ServiceWorker.deliverPushMessage`), as the push service would.
 * Headless Chromium shows no notification one could click, so a click on a notification's action is dispatched
 * inside the worker (a `NotificationEvent` with `action: 'approve'` or `'deny'`), running the worker's own
 * `notificationclick` handler. Such an event is untrusted: its `waitUntil` is replaced to collect the handler's
 * promises, and for Deny `clients.openWindow` (which Chromium allows only after a real click) records the URL asked for.
 */
import type { CDPSession, Page, Worker } from 'playwright-core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../channels/web/index.js';
import { FakePushService } from '../fakes/push/fake-push-service.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { launchChromium, type TestBrowser } from './chromium.js';

const ALICE = 'alice-token-0123456789abcdef';
const POLICY = `
people:
  - { id: alice, accounts: { web: alice } }
`;

interface Shown {
  title: string;
  body: string;
  tag: string;
  actions: string[];
}

describe('push notifications in Chromium', () => {
  let browser: TestBrowser | undefined;
  let server: TestServer;
  let push: FakePushService;
  let page: Page;
  let cdp: CDPSession;

  afterAll(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    browser ??= await launchChromium();
    push = await new FakePushService().start();
    server = await startTestServer({
      channels: [createWebChannel({ users: [{ name: 'alice', token: ALICE }] })],
      policy: POLICY,
      // The fake push service is on 127.0.0.1, which the outbound check refuses unless allowed.
      env: { TOLLGATE_OUTBOUND_ALLOW: '127.0.0.1' },
    });
    push.expectedKey = ((await (await fetch(`${server.url}/ui/push/key`)).json()) as { public_key: string }).public_key;
    await browser.context.grantPermissions(['notifications'], { origin: server.url });
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    cdp = await browser.context.newCDPSession(page);
  });

  afterEach(async () => {
    await page?.close();
    await server?.close();
    await push?.stop();
  });

  /** Signs alice in, waits for the service worker, and subscribes a device of hers (through the page's own session). */
  async function signInAndSubscribe(): Promise<{
    registrationId: string;
    worker: Worker;
    device: ReturnType<FakePushService['device']>;
  }> {
    const registrations = new Promise<string>((resolve) => {
      cdp.on(
        'ServiceWorker.workerRegistrationUpdated',
        (event: { registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] }) => {
          const ours = event.registrations.find((r) => r.scopeURL === `${server.url}/ui` && !r.isDeleted);
          if (ours) resolve(ours.registrationId);
        },
      );
    });
    await cdp.send('ServiceWorker.enable');
    await page.goto(`${server.url}/ui/login`);
    // The permission was granted in beforeEach; a browser that still says no (the headless shell `@sparticuz/chromium`
    // installs) can show no notification at all, and this names that instead of a notification that never shows.
    const permission = await page.evaluate<string>('Notification.permission');
    if (permission !== 'granted') {
      const { source, executablePath } = browser!.choice;
      throw new Error(
        `Chromium from ${source} (${executablePath}) refuses notifications (permission "${permission}" after it was granted): ` +
          'this test needs a Chromium that shows them: apt-get install chromium (as .ci/run does), or CHROMIUM_PATH=...',
      );
    }
    await page.fill('input[name="name"]', 'alice');
    await page.fill('input[name="secret"]', ALICE);
    await page.click('button[type="submit"]');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/ui');
    // Page and worker code is given as text: it runs in the browser, whose DOM types this project does not compile.
    const scope = await page.evaluate<string>('navigator.serviceWorker.ready.then((r) => r.scope)');
    expect(scope).toBe(`${server.url}/ui`);
    // The button shows once the worker is registered (a real browser would subscribe through it).
    await page.locator('[data-push-subscribe]:not([hidden])').waitFor();
    const worker =
      browser!.context.serviceWorkers().find((w) => w.url() === `${server.url}/ui/sw.js`) ??
      (await browser!.context.waitForEvent('serviceworker'));
    const device = push.device();
    const status = await page.evaluate<number>(`(async () => {
      const csrf = document.querySelector('[data-push-subscribe]').getAttribute('data-csrf');
      const res = await fetch('/ui/push/subscriptions', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: ${JSON.stringify(JSON.stringify(device.subscription))} });
      return res.status;
    })()`);
    expect(status).toBe(201);
    return { registrationId: await registrations, worker, device };
  }

  /**
   * What the push service received for the device, handed to the service worker as the push service would, until a
   * notification with its tag shows. In full runs (two test workers on two cores) Chromium sometimes dropped a message
   * handed over while the worker was starting: nothing showed in 10 s. A push service delivers again what was not
   * taken, and the worker shows a message under its request's tag, so a second delivery replaces, never adds. (It waits
   * for this message's title: an outcome replaces a notification already shown under the same tag.)
   */
  async function deliver(registrationId: string, payload: Record<string, unknown>): Promise<void> {
    const data = JSON.stringify(payload);
    for (let attempt = 0; attempt < 3; attempt++) {
      await cdp.send('ServiceWorker.deliverPushMessage', { origin: server.url, registrationId, data });
      const deadline = Date.now() + 4000;
      while (Date.now() < deadline) {
        if ((await notifications()).some((n) => n.tag === payload.request_id && n.title === payload.title)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  const notifications = (): Promise<Shown[]> =>
    page.evaluate<Shown[]>(`navigator.serviceWorker.ready
      .then((r) => r.getNotifications())
      .then((list) => list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, actions: (n.actions || []).map((a) => a.action) })))`);

  async function file(): Promise<string> {
    const res = await server.api('/v1/requests', {
      body: {
        tool_name: 'pay_invoice',
        tool_args: { amount: 120, payee: 'ACME', token: 'sk-live-abcdefghijklmnop0123' },
        approvers: ['person:alice'],
        timeout_s: 600,
      },
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }

  it('is installable: the page links the manifest, which names the app, its scope and an icon', async () => {
    await page.goto(`${server.url}/ui/login`);
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(href).toBe('/ui/manifest.webmanifest');
    const manifest = (await (await fetch(`${server.url}${href}`)).json()) as {
      start_url: string;
      scope: string;
      display: string;
      icons: { src: string }[];
    };
    expect(manifest).toMatchObject({ start_url: '/ui', scope: '/ui', display: 'standalone' });
    expect((await fetch(`${server.url}${manifest.icons[0]!.src}`)).headers.get('content-type')).toContain(
      'image/svg+xml',
    );
    const { installabilityErrors: errors } = (await cdp.send('Page.getInstallabilityErrors')) as {
      installabilityErrors: { errorId: string }[];
    };
    // Chromium's own verdict; a service worker with a fetch handler is no longer required (Chromium 108+).
    expect(errors.map((e) => e.errorId)).toEqual([]);
  });

  it('shows a pushed request with Approve and Deny; Approve decides as alice; the outcome replaces a notification decided elsewhere', async () => {
    const { registrationId, worker, device } = await signInAndSubscribe();
    const id = await file();
    await push.waitFor(1);
    expect(push.problems).toEqual([]);
    await deliver(registrationId, push.messagesOf(device)[0]!.payload);
    await expect.poll(notifications).toEqual([
      {
        title: 'Approval needed: pay_invoice',
        body: expect.stringContaining('payee: ACME'),
        tag: id,
        actions: ['approve', 'deny'],
      },
    ]);
    expect(JSON.stringify(await notifications())).not.toContain('sk-live-abcdefghijklmnop0123');

    // The lock screen's Approve: the worker's notificationclick handler posts the action token.
    const answer = await worker.evaluate<string[]>(`(async () => {
      const [notification] = await self.registration.getNotifications();
      const event = new NotificationEvent('notificationclick', { notification, action: 'approve' });
      // A dispatched event is untrusted, and an untrusted event's waitUntil throws: collect the promises instead.
      const pending = [];
      Object.defineProperty(event, 'waitUntil', { value: (p) => pending.push(p) });
      self.dispatchEvent(event);
      await Promise.all(pending);
      return (await self.registration.getNotifications()).map((n) => n.title);
    })()`);
    expect(answer).toEqual(['Approved: pay_invoice']);
    const row = (await (await server.api(`/v1/requests/${id}`)).json()) as Record<string, unknown>;
    expect(row).toMatchObject({ status: 'approved', responded_by: 'web:alice', responded_via: 'push' });

    // Decided elsewhere: the outcome the gateway pushes replaces the notification (same tag, no actions).
    const other = await file();
    await push.waitFor(3);
    await deliver(
      registrationId,
      push.messagesOf(device).find((m) => m.payload.request_id === other && m.payload.status === 'pending')!.payload,
    );
    await expect
      .poll(async () => (await notifications()).filter((n) => n.tag === other).map((n) => n.actions))
      .toEqual([['approve', 'deny']]);
    expect(
      (
        await server.api(`/v1/requests/${other}/decision`, {
          body: { decision: 'deny', approver: 'web:alice', reason: 'not now' },
        })
      ).status,
    ).toBe(200);
    await expect
      .poll(() => push.messagesOf(device).find((m) => m.payload.request_id === other && m.payload.status === 'denied'))
      .toBeDefined();
    await deliver(
      registrationId,
      push.messagesOf(device).find((m) => m.payload.request_id === other && m.payload.status === 'denied')!.payload,
    );
    await expect
      .poll(async () => (await notifications()).filter((n) => n.tag === other))
      .toEqual([
        { title: 'Denied: pay_invoice', body: expect.stringContaining('Denied by web:alice'), tag: other, actions: [] },
      ]);
  });

  it('Deny opens the request page, where a reason can be given', async () => {
    const { registrationId, worker, device } = await signInAndSubscribe();
    const id = await file();
    await push.waitFor(1);
    await deliver(registrationId, push.messagesOf(device)[0]!.payload);
    await expect.poll(async () => (await notifications()).length).toBe(1);
    const opened = await worker.evaluate<string[]>(`(async () => {
      // Chromium lets only a real click open a window; a dispatched click would be refused, so the worker's
      // clients.openWindow records what it was asked to open instead.
      const urls = [];
      Object.defineProperty(self.clients, 'openWindow', { value: async (url) => void urls.push(url) });
      Object.defineProperty(self.clients, 'matchAll', { value: async () => [] });
      const [notification] = await self.registration.getNotifications();
      const event = new NotificationEvent('notificationclick', { notification, action: 'deny' });
      const pending = [];
      Object.defineProperty(event, 'waitUntil', { value: (p) => pending.push(p) });
      self.dispatchEvent(event);
      await Promise.all(pending);
      return urls;
    })()`);
    expect(opened).toEqual([`${server.url}/ui/requests/${id}`]);
    await page.goto(opened[0]!);
    await page.locator('#decision-form textarea[name="reason"]').first().waitFor();
    expect((await server.store.get(id))!.status).toBe('pending');
  });
});
