/**
 * @module channels/web/pages/markdown
 * The little markdown agents write in prompts ("The agent wants to run `Bash`."): code spans, bold, italics, links
 * and paragraphs. Nothing else is markup: every piece of text goes through the `html` template, so a prompt can never
 * put a tag, an attribute or a script on the page, and a link is only ever http(s) or mailto.
 */
import { html, type SafeHtml } from '../html.js';

// One inline token at a time, leftmost first: `code`, **bold**, *italic* / _italic_, [text](url).
const INLINE =
  /`([^`\n]+)`|\*\*([^*\n]+)\*\*|(?<![\w*])\*([^*\s][^*\n]*?)\*(?!\w)|(?<!\w)_([^_\s][^_\n]*?)_(?!\w)|\[([^\]\n]+)\]\(([^)\s]+)\)/g;

/** A link target the page may carry: absolute http(s) or mailto; anything else stays text. */
function safeHref(url: string): string | null {
  return /^(https?:\/\/|mailto:)/i.test(url) ? url : null;
}

function inline(text: string): SafeHtml[] {
  const out: SafeHtml[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    out.push(html`${text.slice(last, m.index)}`);
    const [whole, code, bold, star, underscore, label, href] = m;
    if (code !== undefined) out.push(html`<code>${code}</code>`);
    else if (bold !== undefined) out.push(html`<strong>${bold}</strong>`);
    else if (star !== undefined || underscore !== undefined) out.push(html`<em>${star ?? underscore}</em>`);
    else {
      const target = safeHref(href!);
      out.push(target ? html`<a href="${target}" rel="noopener noreferrer nofollow">${label}</a>` : html`${whole}`);
    }
    last = m.index + whole.length;
  }
  out.push(html`${text.slice(last)}`);
  return out;
}

/**
 * Renders `text` as paragraphs of inline markdown; single line breaks stay line breaks.
 * @example markdown('Run `rm -rf /tmp/x`?') // <p>Run <code>rm -rf /tmp/x</code>?</p>
 */
export function markdown(text: string): SafeHtml {
  const paragraphs = text.trim().split(/\n\s*\n/);
  return html`${paragraphs.map((p) => html`<p>${p.split('\n').map((line, i) => html`${i ? html`<br>` : ''}${inline(line)}`)}</p>`)}`;
}
