/**
 * @module channels/web/pages/message
 * A page that only says something: not found, forbidden form posts.
 */
import { html, type SafeHtml } from '../html.js';
import { layout, type Viewer } from './layout.js';

/** Renders a titled message with a way back to the inbox. */
export function messagePage(viewer: Viewer, title: string, text: string): SafeHtml {
  return layout(
    { title, viewer },
    html`<section class="card narrow"><h1>${title}</h1><p>${text}</p><p><a href="/ui">Back to the inbox</a></p></section>`,
  );
}
