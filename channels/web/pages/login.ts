/**
 * @module channels/web/pages/login
 * The sign-in page: the identity provider's button when OpenID sign-in is on, name plus password or token when local
 * users exist. Sign-in by link needs no page: the link itself signs in.
 */
import { html, type SafeHtml } from '../html.js';
import { layout, type Viewer } from './layout.js';

/** Options of {@link loginPage}. */
export interface LoginPageOptions {
  csrf: string;
  /** Where to go after signing in (already checked to be a `/ui` path). */
  next: string;
  /** A problem to show (wrong password, spent link). */
  error?: string;
  /** The name typed before, kept after a failed attempt. */
  name?: string;
  /** Whether any named users exist; without them only a login link gets in. */
  hasUsers: boolean;
  /** Whether one-time login links work. */
  loginLinks?: boolean;
  /** Whether sign-in through an OpenID provider is on. */
  oidc?: boolean;
}

/** Renders the sign-in page. */
export function loginPage(options: LoginPageOptions): SafeHtml {
  const body = html`<section class="card narrow">
  <h1>Sign in</h1>
  ${options.error ? html`<p class="notice bad" role="alert">${options.error}</p>` : ''}
  ${
    options.oidc
      ? html`<p><a class="button primary" id="sso" href="/ui/auth/login?next=${encodeURIComponent(options.next)}">Sign in with your organisation’s account</a></p>`
      : ''
  }
  ${
    options.hasUsers
      ? html`<form method="post" action="/ui/login" class="stack">
    <input type="hidden" name="_csrf" value="${options.csrf}">
    <input type="hidden" name="next" value="${options.next}">
    <label>Name <input name="name" autocomplete="username" required value="${options.name ?? ''}" autofocus></label>
    <label>Password or token <input name="secret" type="password" autocomplete="current-password" required></label>
    <button type="submit" class="primary">Sign in</button>
  </form>`
      : ''
  }
  ${
    options.loginLinks !== false
      ? html`<p class="muted">Operators: open the one-time login link that <code>tollgate serve</code> printed when it started.</p>`
      : ''
  }
</section>`;
  return layout(
    { title: 'Sign in', viewer: { user: null, identity: null, csrf: options.csrf, mayDecide: () => false } },
    body,
  );
}

/** Signed out of tollgate; the page sends the browser on to sign out at the identity provider too (`endSessionUrl`). */
export function signedOutPage(viewer: Viewer, endSessionUrl: string): SafeHtml {
  const body = html`<section class="card narrow">
  <h1>Signed out</h1>
  <p>You are signed out of tollgate. Signing you out of your identity provider too…</p>
  <p><a class="button" id="end-session" href="${endSessionUrl}">Continue to sign out there</a></p>
</section>`;
  return layout({ title: 'Signed out', viewer, refreshTo: endSessionUrl }, body);
}
