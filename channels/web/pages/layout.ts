/**
 * @module channels/web/pages/layout
 * The page frame shared by every web page: head, navigation, the sign-out form, the assets.
 */
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { html, type SafeHtml } from '../html.js';
import type { WebIdentity } from '../identity.js';

/** Who is looking, and the CSRF token their forms carry. */
export interface Viewer {
  /** How the page names the signed-in viewer (`web:admin`, `Alice Martin (alice@example.com)`); null when signed out. */
  user: string | null;
  /** Who they are, resolved against the directory; null when signed out. */
  identity: WebIdentity | null;
  csrf: string;
  /** Whether the viewer is one of the request's approvers (by person), so its buttons would be heard. */
  mayDecide(request: ConfirmationRequest): boolean;
}

/** Options of {@link layout}. */
export interface LayoutOptions {
  title: string;
  viewer: Viewer;
  /** Which navigation entry is current. */
  current?: 'inbox' | 'audit' | 'grants' | 'away' | 'insights';
  /** Scripts and stylesheets under `/ui/assets/` that this page alone loads (the insights page's charts). */
  assets?: { scripts?: string[]; styles?: string[] };
  /** What the live-update script refreshes: the page to re-read, and the request whose changes matter (all when absent). */
  live?: { url: string; requestId?: string };
  /** Where the browser goes next by itself (after signing out: the identity provider's sign-out). */
  refreshTo?: string;
}

/** Wraps `body` in the page frame. */
export function layout(options: LayoutOptions, body: SafeHtml): SafeHtml {
  const { viewer } = options;
  const nav = viewer.user
    ? html`<nav class="top">
        <a class="brand" href="/ui">tollgate</a>
        <a href="/ui" ${options.current === 'inbox' ? html`aria-current="page"` : ''}>Inbox</a>
        <a href="/ui/audit" ${options.current === 'audit' ? html`aria-current="page"` : ''}>Audit</a>
        <a href="/ui/grants" ${options.current === 'grants' ? html`aria-current="page"` : ''}>Grants</a>
        <a href="/ui/insights" ${options.current === 'insights' ? html`aria-current="page"` : ''}>Insights</a>
        ${viewer.identity?.person ? html`<a href="/ui/away" ${options.current === 'away' ? html`aria-current="page"` : ''}>Away</a>` : ''}
        <button type="button" class="link" data-push-subscribe data-csrf="${viewer.csrf}" hidden>Notify me on this device</button>
        <span class="who">${viewer.user}</span>
        <form method="post" action="/ui/logout" class="inline">
          <input type="hidden" name="_csrf" value="${viewer.csrf}">
          <button type="submit" class="link">Sign out</button>
        </form>
      </nav>`
    : html`<nav class="top"><span class="brand">tollgate</span></nav>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/ui/icon.svg" type="image/svg+xml">
<link rel="manifest" href="/ui/manifest.webmanifest">
${options.refreshTo ? html`<meta http-equiv="refresh" content="0; url=${options.refreshTo}">` : ''}
<title>${options.title} · tollgate</title>
<link rel="stylesheet" href="/ui/assets/app.css">
${(options.assets?.styles ?? []).map((name) => html`<link rel="stylesheet" href="/ui/assets/${name}">`)}
<script src="/ui/assets/app.js" defer></script>
${viewer.user ? html`<script src="/ui/assets/push.js" defer></script>` : ''}
${(options.assets?.scripts ?? []).map((name) => html`<script src="/ui/assets/${name}" defer></script>`)}
</head>
<body ${options.live ? html`data-live-url="${options.live.url}" data-live-request="${options.live.requestId ?? ''}"` : ''}>
${nav}
<main>
${body}
</main>
</body>
</html>`;
}
