/**
 * A cookie-keeping HTTP client for the web pages, as a browser without JavaScript would use them: it follows
 * redirects itself (carrying cookies), reads CSRF tokens and nonces out of forms, and posts urlencoded forms.
 */

/** A response, read. */
export interface WebResponse {
  status: number;
  /** The path the last redirect led to. */
  path: string;
  headers: Headers;
  /** `Set-Cookie` headers of every hop. */
  setCookies: string[];
  text: string;
}

/** Options of {@link WebClient.request}. */
export interface WebRequestOptions {
  method?: string;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** Stop at the first response instead of following redirects. */
  manual?: boolean;
}

/** One browser: a cookie jar and the gateway's address. */
export class WebClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  /** Sends a request, keeps cookies, follows redirects (303 becomes GET). */
  async request(path: string, options: WebRequestOptions = {}): Promise<WebResponse> {
    let method = options.method ?? (options.form ? 'POST' : 'GET');
    let body: string | undefined = options.form ? new URLSearchParams(options.form).toString() : undefined;
    let url = new URL(path, this.baseUrl);
    const setCookies: string[] = [];
    for (let hop = 0; hop < 10; hop++) {
      const headers: Record<string, string> = { ...options.headers };
      if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      if (body !== undefined) headers['content-type'] ??= 'application/x-www-form-urlencoded';
      const res = await fetch(url, { method, headers, body, redirect: 'manual' });
      for (const line of res.headers.getSetCookie()) {
        setCookies.push(line);
        const [pair] = line.split(';');
        const eq = pair!.indexOf('=');
        const name = pair!.slice(0, eq);
        const value = pair!.slice(eq + 1);
        if (/max-age=0/i.test(line)) this.cookies.delete(name);
        else this.cookies.set(name, value);
      }
      const location = res.headers.get('location');
      if (options.manual || res.status < 300 || res.status >= 400 || !location) {
        return {
          status: res.status,
          path: url.pathname + url.search,
          headers: res.headers,
          setCookies,
          text: await res.text(),
        };
      }
      await res.body?.cancel();
      url = new URL(location, url);
      method = 'GET';
      body = undefined;
    }
    throw new Error(`too many redirects from ${path}`);
  }

  /** Signs in with a name and a password or token through the sign-in form. Returns the final response. */
  async signIn(name: string, secret: string): Promise<WebResponse> {
    const page = await this.request('/ui/login');
    return this.request('/ui/login', { form: { _csrf: formValue(page.text, '_csrf'), name, secret, next: '/ui' } });
  }

  /** Opens a request's page and posts one of its decision forms with `fields` on top of the form's own values. */
  async decide(
    requestId: string,
    fields: Record<string, string>,
    options: { headers?: Record<string, string> } = {},
  ): Promise<WebResponse> {
    const page = await this.request(`/ui/requests/${requestId}`);
    // A page of a decided request has no decision form: then `fields` must bring the nonce (a stale page's post).
    const form: Record<string, string> = { _csrf: formValue(page.text, '_csrf') };
    if (page.text.includes('name="nonce"')) {
      form.nonce = formValue(page.text, 'nonce');
      form.args_sha256 = formValue(page.text, 'args_sha256');
    }
    Object.assign(form, fields);
    return this.request(`/ui/requests/${requestId}/decision`, {
      form,
      headers: { origin: new URL(this.baseUrl).origin, ...options.headers },
    });
  }
}

/** The value of the first `<input name="…" value="…">` in `html` (entities decoded). */
export function formValue(html: string, name: string): string {
  const match = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no input named ${name} in the page`);
  return decodeEntities(match[1]!);
}

/** Decodes the entities the pages use. */
export function decodeEntities(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39|#96);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#96': '`' })[e]!,
  );
}

/** The visible text of a page: tags, scripts and head removed, entities decoded, whitespace collapsed. */
export function visibleText(html: string): string {
  const body = html.replace(/<head>[\s\S]*?<\/head>/, '').replace(/<(script|style)[\s\S]*?<\/\1>/g, '');
  return decodeEntities(body.replace(/<[^>]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}
