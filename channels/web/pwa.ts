/**
 * @module channels/web/pwa
 * What makes the inbox an installable web app with notifications: the manifest, the icon, the service worker and the
 * page script behind "Notify me on this device". Plain JavaScript served as is, like `assets.ts`.
 *
 * The service worker shows each push as a notification tagged with the request id (so the outcome replaces it) with
 * Approve and Deny actions. Approve posts the notification's single-use action token to `/ui/push/act` and shows what
 * came of it; Deny and a tap on the notification open the request's page, where a reason can be given.
 */

/** The web app manifest (`/ui/manifest.webmanifest`). */
export const MANIFEST = JSON.stringify({
  name: 'tollgate inbox',
  short_name: 'tollgate',
  description: 'Approve or deny what AI agents ask to do.',
  start_url: '/ui',
  scope: '/ui',
  display: 'standalone',
  background_color: '#ffffff',
  theme_color: '#1f2937',
  icons: [{ src: '/ui/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any maskable' }],
});

/** The app icon: a gate, drawn as SVG so one file serves every size. */
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><rect width="512" height="512" rx="96" fill="#1f2937"/><path d="M128 400V176h256v224M128 240h256M192 176v224M256 176v224M320 176v224" fill="none" stroke="#fbbf24" stroke-width="28" stroke-linecap="round"/><path d="M112 176l144-80 144 80" fill="none" stroke="#fbbf24" stroke-width="28" stroke-linejoin="round"/></svg>`;

/** The service worker (`/ui/sw.js`, scope `/ui`, so the inbox at `/ui` itself is inside it). */
export const SERVICE_WORKER_JS = `'use strict';
var TITLES = { approve: 'Approve', deny: 'Deny' };
self.addEventListener('install', function () { self.skipWaiting(); });
self.addEventListener('activate', function (event) { event.waitUntil(self.clients.claim()); });

function show(data) {
  var actions = (data.actions || []).map(function (a) { return { action: a, title: TITLES[a] || a }; });
  return self.registration.showNotification(data.title || 'tollgate', {
    body: data.body || '',
    tag: data.request_id,
    renotify: data.status === 'pending',
    requireInteraction: data.status === 'pending',
    icon: '/ui/icon.svg',
    actions: actions,
    data: data
  });
}

self.addEventListener('push', function (event) {
  var data = null;
  try { data = event.data ? event.data.json() : null; } catch (e) { data = null; }
  if (!data || typeof data.request_id !== 'string') return;
  event.waitUntil(show(data));
});

function open(url) {
  return self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(function (list) {
    for (var i = 0; i < list.length; i++) {
      if (list[i].url === url && 'focus' in list[i]) return list[i].focus();
    }
    return self.clients.openWindow(url);
  });
}

self.addEventListener('notificationclick', function (event) {
  var data = event.notification.data || {};
  var url = typeof data.url === 'string' ? data.url : '/ui';
  event.notification.close();
  if (event.action !== 'approve' || !data.action_token) {
    // Deny needs a reason, and a plain tap means "show me": both open the request's page.
    event.waitUntil(open(url));
    return;
  }
  event.waitUntil(
    fetch('/ui/push/act', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      credentials: 'omit',
      body: JSON.stringify({ action_token: data.action_token, action: 'approve' })
    })
      .then(function (res) { return res.json(); })
      .then(function (answer) {
        // Too old to decide from the lock screen (or the device was unsubscribed): the page can still decide.
        if (answer.code === 'expired' || answer.code === 'unsubscribed') return open(url);
        return show({ request_id: data.request_id, title: answer.title, body: answer.message, actions: [], url: url, status: answer.status || 'done' });
      })
      .catch(function () { return open(url); })
  );
});
`;

/** The page script behind "Notify me on this device" (`/ui/assets/push.js`). */
export const PUSH_CLIENT_JS = `(function () {
  'use strict';
  var button = document.querySelector('[data-push-subscribe]');
  if (!button || !('serviceWorker' in navigator) || !('PushManager' in window) || !window.fetch) return;
  function key(base64url) {
    var text = atob(base64url.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((base64url.length + 3) % 4));
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  }
  var csrf = button.getAttribute('data-csrf');
  navigator.serviceWorker.register('/ui/sw.js', { scope: '/ui' }).then(function (registration) {
    return registration.pushManager.getSubscription().then(function (existing) {
      button.hidden = false;
      button.textContent = existing ? 'Notifications on for this device' : 'Notify me on this device';
      button.addEventListener('click', function () {
        fetch('/ui/push/key').then(function (res) { return res.json(); }).then(function (answer) {
          return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key(answer.public_key) });
        }).then(function (subscription) {
          return fetch('/ui/push/subscriptions', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify(subscription) });
        }).then(function (res) {
          button.textContent = res.status === 201 ? 'Notifications on for this device' : 'Notifications not available';
        }).catch(function () { button.textContent = 'Notifications blocked in this browser'; });
      });
    });
  }).catch(function () {});
})();
`;
