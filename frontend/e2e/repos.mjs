// Real git repositories for browser tests: one commit on main, in a
// folder the test owns, made with the system's git and a fixed identity.

import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Runs git in dir with a fixed identity and no signing; returns its trimmed output. */
export const gitIn = (dir, ...args) =>
  execFileSync('git', ['-c', 'user.name=Clawboo E2E', '-c', 'user.email=e2e@clawboo.invalid', '-c', 'commit.gpgsign=false', ...args], {
    cwd: dir,
    stdio: 'pipe',
  })
    .toString()
    .trim();

/** A git repository named name under parent, with README.md committed on main. */
export async function makeRepoIn(parent, name) {
  const dir = join(parent, name);
  await mkdir(dir, { recursive: true });
  gitIn(dir, 'init', '-q', '-b', 'main');
  await writeFile(join(dir, 'README.md'), '# test repository\n');
  gitIn(dir, 'add', '.');
  gitIn(dir, 'commit', '-q', '-m', 'initial commit');
  return dir;
}
