/**
 * @module channels/web/diff-assets
 * What the request page alone loads to show diffs: diff2html's stylesheet, served from its npm package (never a CDN:
 * the content security policy allows styles from this origin only), and the page's own rules that fit it to tollgate's
 * colours and a phone's width. diff2html was chosen for being maintained, MIT-licensed, rendering on the server (no
 * script on the page) and escaping the diff's text itself.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** tollgate's rules over diff2html's: no fixed widths, wrapped long lines, readable on a phone and in dark mode. */
const DIFF_CSS = `
.diffs .d2h-wrapper { text-align: left; }
.diffs .d2h-file-wrapper { border-radius: 8px; margin-bottom: 0.75rem; }
.diffs .d2h-diff-table { font-size: 0.85rem; }
.diffs .d2h-code-line-ctn { white-space: pre-wrap; overflow-wrap: anywhere; }
@media (max-width: 640px) {
  .diffs .d2h-code-linenumber { width: 2.75em; }
  .diffs .d2h-code-linenumber .line-num1 { display: none; }
  .diffs .d2h-code-line { padding: 0 0.5em 0 3.25em; width: calc(100% - 3.75em); }
}
`;

let css: string | undefined;

/** diff2html's stylesheet and tollgate's rules over it, read from the installed package on first use. */
export function diffStylesheet(): string {
  if (css === undefined) {
    const dir = join(dirname(createRequire(import.meta.url).resolve('diff2html/package.json')), 'bundles', 'css');
    css = `${readFileSync(join(dir, 'diff2html.min.css'), 'utf8')}\n${DIFF_CSS}`;
  }
  return css;
}
