/**
 * The Block Kit limits the fake Slack enforces (the ones a card could break: sizes of texts, fields, buttons), and
 * how it renders blocks to the text a reader would see.
 */

type Json = Record<string, unknown>;

const KNOWN = new Set(['header', 'section', 'context', 'actions', 'divider', 'input', 'image', 'rich_text']);

function textOf(value: unknown): string {
  return typeof value === 'object' && value !== null && typeof (value as Json).text === 'string'
    ? ((value as Json).text as string)
    : '';
}

/** The first rule `blocks` breaks, or null when Slack would take them. */
export function blockProblem(blocks: unknown): string | null {
  if (!Array.isArray(blocks)) return 'blocks must be an array';
  if (blocks.length > 50) return 'no more than 50 blocks';
  const actionIds = new Set<string>();
  for (const [i, raw] of blocks.entries()) {
    const block = raw as Json;
    const type = String(block.type);
    if (!KNOWN.has(type)) return `blocks[${i}]: unknown type ${type}`;
    if (
      type === 'header' &&
      (textOf(block.text).length > 150 || (block.text as Json | undefined)?.type !== 'plain_text')
    )
      return `blocks[${i}]: header must be plain_text <= 150`;
    if (type === 'section') {
      if (!block.text && !block.fields) return `blocks[${i}]: section needs text or fields`;
      if (textOf(block.text).length > 3000) return `blocks[${i}]: section text must be <= 3000 characters`;
      const fields = (block.fields as unknown[] | undefined) ?? [];
      if (fields.length > 10 || fields.some((f) => textOf(f).length > 2000))
        return `blocks[${i}]: at most 10 fields of <= 2000 characters`;
    }
    if (type === 'context' && ((block.elements as unknown[] | undefined)?.length ?? 0) > 10)
      return `blocks[${i}]: at most 10 context elements`;
    if (type === 'actions') {
      const elements = (block.elements as Json[] | undefined) ?? [];
      if (elements.length === 0 || elements.length > 25) return `blocks[${i}]: 1 to 25 elements`;
      for (const element of elements) {
        const id = String(element.action_id ?? '');
        if (actionIds.has(id)) return `blocks[${i}]: duplicate action_id ${id}`;
        actionIds.add(id);
        if (textOf(element.text).length > 75) return `blocks[${i}]: button text must be <= 75 characters`;
        if (String(element.value ?? '').length > 2000) return `blocks[${i}]: button value must be <= 2000 characters`;
        if (element.style !== undefined && element.style !== 'primary' && element.style !== 'danger')
          return `blocks[${i}]: bad button style`;
      }
    }
  }
  return null;
}

/** Renders what Slack shows in place of markup: entities unescaped, date tokens as their fallback. */
function rendered(text: string): string {
  return text
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Every text a reader sees in `blocks`, one per line. */
export function visibleText(blocks: unknown[]): string {
  const lines: string[] = [];
  for (const raw of blocks) {
    const block = raw as Json;
    lines.push(textOf(block.text));
    for (const f of (block.fields as unknown[] | undefined) ?? []) lines.push(textOf(f));
    for (const e of (block.elements as unknown[] | undefined) ?? []) lines.push(textOf(e) || textOf((e as Json).text));
  }
  return rendered(lines.filter(Boolean).join('\n'));
}

/** The buttons of a version of a message: action id, value, label. */
export function buttonsOf(blocks: unknown[]): { actionId: string; value: string; label: string }[] {
  return blocks
    .filter((b) => (b as Json).type === 'actions')
    .flatMap((b) => ((b as Json).elements as Json[]) ?? [])
    .map((e) => ({ actionId: String(e.action_id), value: String(e.value ?? ''), label: textOf(e.text) }));
}
