/**
 * What Telegram does with a message in HTML parse mode, as far as tollgate's cards go: the tags it supports, the
 * entities it decodes, and the errors it answers (`Bad Request: can't parse entities: …`) for anything else — a stray
 * `<` or `&` included, so a card that forgot to escape attacker text is refused here as Telegram would refuse it.
 */

/** The tags Telegram's HTML parse mode knows. */
const TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'a',
  'tg-emoji',
  'code',
  'pre',
  'blockquote',
]);
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/** A parsed message: the text a reader sees and the tags (with their `href`, for links) that formatted it. */
export interface ParsedHtml {
  text: string;
  tags: { name: string; href?: string }[];
}

/** Parses `html` as Telegram does; a string is the error description Telegram would answer. */
export function parseHtml(html: string): ParsedHtml | string {
  const tags: ParsedHtml['tags'] = [];
  const open: string[] = [];
  let text = '';
  let i = 0;
  while (i < html.length) {
    const rest = html.slice(i);
    if (rest[0] === '<') {
      const tag = /^<(\/?)([a-zA-Z][a-zA-Z-]*)((?:\s+[a-zA-Z-]+(?:="[^"<>]*")?)*)\s*>/.exec(rest);
      if (!tag) return `Bad Request: can't parse entities: Unexpected end of name token at byte offset ${i}`;
      const name = tag[2]!.toLowerCase();
      if (!TAGS.has(name))
        return `Bad Request: can't parse entities: Unsupported start tag "${name}" at byte offset ${i}`;
      if (tag[1]) {
        if (open.pop() !== name)
          return `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${name}"`;
      } else {
        open.push(name);
        const href = /href="([^"]*)"/.exec(tag[3] ?? '')?.[1];
        tags.push(href === undefined ? { name } : { name, href });
      }
      i += tag[0].length;
      continue;
    }
    if (rest[0] === '&') {
      const entity = /^&(lt|gt|amp|quot|#\d{1,7}|#x[0-9a-fA-F]{1,6});/.exec(rest);
      if (!entity) return `Bad Request: can't parse entities: Unsupported HTML entity at byte offset ${i}`;
      const name = entity[1]!;
      text += name.startsWith('#x')
        ? String.fromCodePoint(parseInt(name.slice(2), 16))
        : name.startsWith('#')
          ? String.fromCodePoint(Number(name.slice(1)))
          : ENTITIES[name]!;
      i += entity[0].length;
      continue;
    }
    if (rest[0] === '>') return `Bad Request: can't parse entities: Unmatched end tag at byte offset ${i}`;
    text += rest[0];
    i += 1;
  }
  if (open.length)
    return `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${open.at(-1)}"`;
  return { text, tags };
}

/** An inline keyboard button as sent. */
export interface SentButton {
  text: string;
  callback_data: string;
}

/** The buttons of a `reply_markup`, row by row flattened; empty when there is none. */
export function buttonsOf(markup: unknown): SentButton[] {
  const rows = (markup as { inline_keyboard?: unknown } | undefined)?.inline_keyboard;
  return Array.isArray(rows) ? (rows.flat() as SentButton[]) : [];
}

/** Why Telegram would refuse this keyboard (`BUTTON_DATA_INVALID` and friends), or null. */
export function keyboardProblem(markup: unknown): string | null {
  if (markup === undefined) return null;
  const rows = (markup as { inline_keyboard?: unknown }).inline_keyboard;
  if (!Array.isArray(rows)) return 'Bad Request: object expected as reply markup';
  if (rows.length > 100 || rows.some((row) => !Array.isArray(row) || row.length > 8))
    return 'Bad Request: too many buttons';
  for (const button of rows.flat() as Partial<SentButton>[]) {
    if (typeof button.text !== 'string' || !button.text)
      return 'Bad Request: text buttons are unallowed in the inline keyboard';
    const data = button.callback_data;
    if (typeof data !== 'string' || Buffer.byteLength(data) < 1 || Buffer.byteLength(data) > 64)
      return 'Bad Request: BUTTON_DATA_INVALID';
  }
  return null;
}
