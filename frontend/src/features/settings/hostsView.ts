// Plain words about a host, kept out of the component (unit-tested).

import type { Host } from '../../lib/api/hostsClient';
import type { RuntimeEntry } from '../../lib/api/types';

/** The host's state in words. */
export function stateWords(h: Pick<Host, 'state'>): string {
  switch (h.state) {
    case 'ready':
      return 'Ready';
    case 'connecting':
      return 'Connecting…';
    case 'unreachable':
      return 'Unreachable';
    case 'unknown-host-key':
      return 'Its key needs your check';
    case 'host-key-changed':
      return 'Its key has changed: refused';
    case 'version-mismatch':
      return 'Needs an update';
    default:
      return 'Unknown state';
  }
}

/** "Linux · amd64 · 8 cores · 15.6 GiB", or "" before the host was reached. */
export function whatItIs(h: Pick<Host, 'os' | 'arch' | 'cores' | 'memoryBytes'>): string {
  const parts: string[] = [];
  if (h.os) parts.push(h.os === 'linux' ? 'Linux' : h.os === 'darwin' ? 'macOS' : h.os);
  if (h.arch) parts.push(h.arch);
  if (h.cores > 0) parts.push(`${h.cores} ${h.cores === 1 ? 'core' : 'cores'}`);
  if (h.memoryBytes > 0) parts.push(`${(h.memoryBytes / 2 ** 30).toFixed(1)} GiB`);
  return parts.join(' · ');
}

/** Whether the state is a problem a person should read (the reason is shown as an alert). */
export function isTrouble(h: Pick<Host, 'state'>): boolean {
  return h.state === 'unreachable' || h.state === 'host-key-changed' || h.state === 'version-mismatch';
}

/** "Runtimes there: Claude Code, Codex", by the catalog's names (ids only for one it does not list). */
export function runtimeWords(h: Pick<Host, 'runtimes'>, runtimes: readonly Pick<RuntimeEntry, 'id' | 'name'>[]): string {
  if (!h.runtimes?.length) return 'No agent runtime found there yet.';
  const names = h.runtimes.map((id) => runtimes.find((r) => r.id === id)?.name ?? id);
  return `Runtimes there: ${names.join(', ')}`;
}
