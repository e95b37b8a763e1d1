/**
 * The message limits the fake Discord enforces (the ones a card could break: content, embed and component sizes,
 * button counts and `custom_id`s), and how it renders a message to the text a reader would see.
 */

type Json = Record<string, unknown>;

const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** The first rule `body` breaks, or null when Discord would take it (Discord answers 50035 Invalid Form Body). */
export function messageProblem(body: Json): string | null {
  if (str(body.content).length > 2000) return 'content: must be 2000 or fewer in length';
  const embeds = (body.embeds as Json[] | undefined) ?? [];
  if (embeds.length > 10) return 'embeds: at most 10';
  let total = 0;
  for (const [i, embed] of embeds.entries()) {
    const fields = (embed.fields as Json[] | undefined) ?? [];
    if (str(embed.title).length > 256) return `embeds.${i}.title: must be 256 or fewer in length`;
    if (str(embed.description).length > 4096) return `embeds.${i}.description: must be 4096 or fewer in length`;
    if (fields.length > 25) return `embeds.${i}.fields: at most 25`;
    for (const field of fields) {
      if (!str(field.name) || str(field.name).length > 256 || !str(field.value) || str(field.value).length > 1024)
        return `embeds.${i}.fields: name 1-256, value 1-1024`;
    }
    total +=
      str(embed.title).length + str(embed.description).length + str((embed.footer as Json | undefined)?.text).length;
    total += fields.reduce((n, f) => n + str(f.name).length + str(f.value).length, 0);
  }
  if (total > 6000) return 'embeds: more than 6000 characters in all';
  const rows = (body.components as Json[] | undefined) ?? [];
  if (rows.length > 5) return 'components: at most 5 action rows';
  const ids = new Set<string>();
  for (const [i, row] of rows.entries()) {
    const buttons = (row.components as Json[] | undefined) ?? [];
    if (row.type !== 1 || buttons.length < 1 || buttons.length > 5)
      return `components.${i}: an action row holds 1 to 5 buttons`;
    for (const button of buttons) {
      const id = str(button.custom_id);
      if (button.type !== 2 || ![1, 2, 3, 4].includes(Number(button.style))) return `components.${i}: bad button`;
      if (!id || id.length > 100 || ids.has(id)) return `components.${i}: custom_id must be unique, 1-100 characters`;
      if (str(button.label).length > 80) return `components.${i}: label must be 80 or fewer in length`;
      ids.add(id);
    }
  }
  return null;
}

/** The first rule a modal response's `data` breaks, or null when Discord would show it. */
export function modalProblem(data: Json): string | null {
  const rows = (data.components as Json[] | undefined) ?? [];
  if (!str(data.custom_id) || str(data.custom_id).length > 100) return 'custom_id must be 1-100 characters';
  if (!str(data.title) || str(data.title).length > 45) return 'title must be 1-45 characters';
  if (rows.length < 1 || rows.length > 5) return 'a modal holds 1 to 5 rows';
  for (const row of rows) {
    const inputs = (row.components as Json[] | undefined) ?? [];
    if (row.type !== 1 || inputs.length !== 1 || inputs[0]!.type !== 4) return 'each row holds one text input';
    if (!str(inputs[0]!.label) || str(inputs[0]!.label).length > 45 || Number(inputs[0]!.max_length ?? 4000) > 4000)
      return 'text input: label 1-45, max_length <= 4000';
  }
  return null;
}

/** Renders what Discord shows in place of markup: backslash escapes resolved, bold markers gone, zero-width spaces too. */
export function rendered(text: string): string {
  return text
    .replace(/\\([^A-Za-z0-9\s])|\*\*/g, (_, escaped: string | undefined) => escaped ?? '')
    .replace(/\u200b/g, '');
}

/** Every text a reader sees in a message, one per line. */
export function visibleText(body: Json): string {
  const lines = [str(body.content)];
  for (const embed of (body.embeds as Json[] | undefined) ?? []) {
    lines.push(str(embed.title), str(embed.description));
    for (const field of (embed.fields as Json[] | undefined) ?? []) lines.push(str(field.name), str(field.value));
    lines.push(str((embed.footer as Json | undefined)?.text));
  }
  for (const button of buttonsOf(body)) lines.push(button.label);
  return rendered(lines.filter(Boolean).join('\n'));
}

/** The buttons of a version of a message: custom id and label. */
export function buttonsOf(body: Json): { customId: string; label: string }[] {
  return ((body.components as Json[] | undefined) ?? []).flatMap((row) =>
    ((row.components as Json[] | undefined) ?? []).map((b) => ({ customId: str(b.custom_id), label: str(b.label) })),
  );
}
