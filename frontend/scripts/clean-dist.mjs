// Empties dist/ before a build but keeps dist/.gitkeep: Go's `//go:embed
// all:frontend/dist` fails to compile when the folder is missing, so the
// committed placeholder must survive every build (vite runs with
// emptyOutDir: false for the same reason).
import { readdirSync, rmSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
mkdirSync(dist, { recursive: true });
for (const name of readdirSync(dist)) {
  if (name !== '.gitkeep') rmSync(join(dist, name), { recursive: true, force: true });
}
if (!existsSync(join(dist, '.gitkeep'))) writeFileSync(join(dist, '.gitkeep'), '');
