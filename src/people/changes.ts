/**
 * @module people/changes
 * What a reload changed about who may approve: people added or removed, accounts moved, group members changed, away
 * windows of the config file changed.
 * Logged on every reload, so an auditor can tell from the log when someone gained or lost a say.
 */
import type { Directory } from './types.js';

/** The differences between two directories, as short sentences; empty when nothing that matters changed. */
export function directoryChanges(before: Directory, after: Directory): string[] {
  const changes: string[] = [];
  const ids = (d: Directory) => new Set(d.people().map((p) => p.id));
  const was = ids(before);
  const now = ids(after);
  for (const id of now) if (!was.has(id)) changes.push(`person ${id} added`);
  for (const id of was) if (!now.has(id)) changes.push(`person ${id} removed`);
  for (const person of after.people()) {
    const old = before.person(person.id);
    if (!old) continue;
    const accounts = (p: typeof person) =>
      Object.entries(p.accounts)
        .map(([c, a]) => `${c}:${a}`)
        .sort()
        .join(', ');
    const away = (p: typeof person) =>
      p.away
        ? `${p.away.from.toISOString()}–${p.away.until.toISOString()}${p.away.delegate ? ` for ${p.away.delegate}` : ''}`
        : '-';
    if (away(old) !== away(person))
      changes.push(
        `person ${person.id}: away ${away(old)} → ${away(person)} (the config file's window; one set at run time overrides it)`,
      );
    if (accounts(old) !== accounts(person) || old.email !== person.email)
      changes.push(
        `person ${person.id}: accounts ${accounts(old) || '-'} → ${accounts(person) || '-'}${old.email !== person.email ? `, email ${old.email ?? '-'} → ${person.email ?? '-'}` : ''}`,
      );
  }
  const groups = new Set([...before.groups(), ...after.groups()].map((g) => g.id));
  for (const id of groups) {
    const old = before.group(id)?.people ?? null;
    const next = after.group(id)?.people ?? null;
    if (old === null) changes.push(`group ${id} added: ${next!.join(', ') || '(nobody)'}`);
    else if (next === null) changes.push(`group ${id} removed`);
    else {
      const gained = next.filter((p) => !old.includes(p));
      const lost = old.filter((p) => !next.includes(p));
      if (gained.length || lost.length)
        changes.push(`group ${id}: ${[...gained.map((p) => `+${p}`), ...lost.map((p) => `-${p}`)].join(' ')}`);
    }
  }
  return changes;
}
