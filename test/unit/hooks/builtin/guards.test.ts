import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  HookRegistry,
  findDestructive,
  guardDestructiveHook,
  guardPathsHook,
  readOnlyHook,
} from '../../../../src/hooks/index.js';
import type { HookObject } from '../../../../src/hooks/index.js';
import { memoryLogger } from '../helpers.js';

async function verdict(
  hook: HookObject,
  toolName: string,
  toolArgs: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
) {
  const registry = new HookRegistry({ logger: memoryLogger() });
  registry.register('tool:pre', hook);
  return registry.run('tool:pre', { toolName, toolArgs, metadata });
}

describe('guard_destructive (lionagi list)', () => {
  it.each([
    ['rm -rf /', 'rm -rf'],
    ['cd x && rm -fr build', 'rm -rf'],
    ['rm -Rf ~/x', 'rm -rf'],
    ['rm -r -f dir', 'rm -r -f'],
    ['rm --recursive --force dir', 'rm -rf'],
    ['git push --force origin main', 'git push --force'],
    ['git push -f', 'git push --force'],
    ['git reset --hard HEAD~3', 'git reset --hard'],
    ['git clean -fd', 'git clean -fd'],
    ['psql -c "DROP TABLE users"', 'drop table'],
    ['drop database prod;', 'drop database'],
    ['TRUNCATE TABLE logs', 'truncate table'],
    ['mkfs.ext4 /dev/sdb1', 'mkfs'],
    ['dd if=/dev/zero of=/dev/sda', 'dd if='],
    ['cat x > /dev/sda', '> /dev/sd*'],
  ])('flags %s', (command, name) => {
    expect(findDestructive(command)).toBe(name);
  });

  it.each([
    'rm file.txt',
    'rm -r build',
    'git push origin main',
    'git reset --soft HEAD~1',
    'select * from drop_tables',
    'ls -la',
    'echo rmdir',
  ])('lets %s through', (command) => {
    expect(findDestructive(command)).toBeUndefined();
  });

  it('denies through the hook, on the configured tools and argument names, with extra patterns', async () => {
    const hook = guardDestructiveHook({ tools: ['bash'], extra_patterns: ['shutdown'] });
    expect(await verdict(hook, 'bash', { command: 'rm -rf /' })).toMatchObject({
      action: 'deny',
      reason: '"command" contains a destructive operation (rm -rf); it is blocked',
    });
    expect((await verdict(hook, 'bash', { command: 'sudo SHUTDOWN now' })).action).toBe('deny');
    expect((await verdict(hook, 'write_file', { command: 'rm -rf /' })).action).toBe('continue');
    expect((await verdict(hook, 'bash', { note: 'rm -rf /' })).action).toBe('continue');
  });
});

describe('guard_paths (lionagi workspace rule)', () => {
  const root = mkdtempSync(join(tmpdir(), 'tollgate-ws-'));
  const outside = mkdtempSync(join(tmpdir(), 'tollgate-out-'));
  mkdirSync(join(root, 'src'));
  symlinkSync(outside, join(root, 'escape'));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('resolves relative paths against the workspace root and keeps them inside', async () => {
    const hook = guardPathsHook({ workspace_root: root });
    expect((await verdict(hook, 'reader', { path: 'src/a.ts' })).action).toBe('continue');
    expect((await verdict(hook, 'reader', { file_path: join(root, 'new/dir/file.txt') })).action).toBe('continue');
    const out = await verdict(hook, 'reader', { path: '../../etc/passwd' });
    expect(out.action).toBe('deny');
    expect(out.reason).toContain('path "../../etc/passwd" (argument "path") is outside the allowed workspace');
    expect((await verdict(hook, 'editor', { file_path: '/etc/hosts' })).action).toBe('deny');
  });

  it('follows symlinks, so a link cannot lead out of the workspace', async () => {
    const hook = guardPathsHook({ workspace_root: root });
    expect((await verdict(hook, 'reader', { path: 'escape/secret.txt' })).action).toBe('deny');
  });

  it('allows extra roots, checks arrays, and only the configured tools', async () => {
    const hook = guardPathsHook({ workspace_root: root, allowed_paths: ['.', outside], tools: ['reader'] });
    expect((await verdict(hook, 'reader', { paths: ['src/x', join(outside, 'y')] })).action).toBe('continue');
    expect((await verdict(hook, 'reader', { paths: ['src/x', '/etc/x'] })).action).toBe('deny');
    expect((await verdict(hook, 'bash', { path: '/etc/x' })).action).toBe('continue');
  });
});

describe('read_only', () => {
  it('denies write-like tools and lets reads and exceptions through', async () => {
    const hook = readOnlyHook({ allow_tools: ['write_scratch'] });
    expect(await verdict(hook, 'write_file')).toMatchObject({
      action: 'deny',
      reason: 'the workspace is in read-only mode; writes are blocked',
    });
    expect((await verdict(hook, 'sql_insert')).action).toBe('deny');
    expect((await verdict(hook, 'read_file')).action).toBe('continue');
    expect((await verdict(hook, 'write_scratch')).action).toBe('continue');
  });

  it('can follow a metadata switch (FIM One’s org read-only mode)', async () => {
    const hook = readOnlyHook({ when_metadata: 'org_read_only', reason: 'org is read-only' });
    expect((await verdict(hook, 'delete_user', {}, { org_read_only: false })).action).toBe('continue');
    expect((await verdict(hook, 'delete_user', {}, { org_read_only: true })).reason).toBe('org is read-only');
  });
});
