/**
 * The repository and branch a hook records, read from `.git` without running git: a checkout, a worktree (`.git`
 * is a file naming the git directory, whose `commondir` holds the config), a detached HEAD, and no repository.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitPlace, repoOfUrl } from '../../../src/agents/git.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tollgate-git-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};

describe('gitPlace', () => {
  it('reads owner/name from origin and the branch from HEAD, from any subdirectory', () => {
    write(join(root, 'billing/.git/HEAD'), 'ref: refs/heads/release/2026-11\n');
    write(
      join(root, 'billing/.git/config'),
      '[remote "upstream"]\n\turl = git@github.com:other/fork.git\n[remote "origin"]\n\turl = https://github.com/acme/billing.git\n',
    );
    mkdirSync(join(root, 'billing/src/deep'), { recursive: true });
    expect(gitPlace(join(root, 'billing/src/deep'))).toEqual({ repo: 'acme/billing', branch: 'release/2026-11' });
  });

  it("follows a worktree's .git file to its git directory and the shared config", () => {
    write(
      join(root, 'main/.git/config'),
      '[remote "origin"]\n\turl = ssh://git@gitlab.example.com:2222/platform/infra\n',
    );
    write(join(root, 'main/.git/worktrees/wt/HEAD'), 'ref: refs/heads/feature\n');
    write(join(root, 'main/.git/worktrees/wt/commondir'), '../..\n');
    write(join(root, 'wt/.git'), `gitdir: ${join(root, 'main/.git/worktrees/wt')}\n`);
    expect(gitPlace(join(root, 'wt'))).toEqual({ repo: 'platform/infra', branch: 'feature' });
  });

  it('names a detached HEAD by its commit, a repository without origin by its directory, and nothing outside one', () => {
    write(join(root, 'scratch/.git/HEAD'), `${'a1b2c3d4e5f6'.repeat(3)}abcd\n`);
    expect(gitPlace(join(root, 'scratch'))).toEqual({ repo: 'scratch', branch: 'a1b2c3d4e5f6' });
    mkdirSync(join(root, 'plain'));
    expect(gitPlace(join(root, 'plain'))).toEqual({ repo: null, branch: null });
    expect(gitPlace(null)).toEqual({ repo: null, branch: null });
  });

  it('reads the last two path segments of a remote URL', () => {
    expect(repoOfUrl('git@github.com:acme/billing.git')).toBe('acme/billing');
    expect(repoOfUrl('https://github.com/acme/billing/')).toBe('acme/billing');
    expect(repoOfUrl('billing')).toBeNull();
  });
});
