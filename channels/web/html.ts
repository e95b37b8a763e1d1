/**
 * @module channels/web/html
 * The `html` tagged template: every interpolated value is escaped unless it is already {@link SafeHtml} (the result of
 * another `html` template). Tool arguments, prompts, reasons and agent ids are attacker-controlled; this is the only
 * way the web pages put them on a page, so forgetting to escape is not possible.
 */

/** Markup that is already safe to send: built by {@link html}, never from raw strings. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * Builds markup, escaping every value; arrays are concatenated; `null`, `undefined` and `false` render as nothing.
 * @example html`<p title="${userText}">${userText}</p>` // both escaped
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}
