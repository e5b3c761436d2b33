// Plain words about a host, kept out of the component (unit-tested).

import type { Host } from '../../lib/api/hostsClient';
import type { InstallEvent, RuntimeEntry } from '../../lib/api/types';

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

// ---- where work runs: the "Runs on" choice, and "on Build box" beside an agent or a task ----

/** The place of an agent whose runs are not sent to a host. */
export const THIS_COMPUTER = 'This computer';

/** The state in words within a sentence ("unreachable", "its key needs your check"). */
export function stateInline(h: Pick<Host, 'state'>): string {
  const s = stateWords(h);
  return `${s.charAt(0).toLowerCase()}${s.slice(1)}`;
}

/** A host as a choice names it: its name, and its state in words when not ready ("Build box — unreachable"). */
export function hostChoiceLabel(h: Pick<Host, 'name' | 'state'>): string {
  return h.state === 'ready' ? h.name : `${h.name} — ${stateInline(h)}`;
}

export interface HostChoice {
  /** The host's id; "" for this computer. */
  value: string;
  label: string;
}

/**
 * The "Runs on" choices: this computer, then each host by name. The chosen
 * host (`current`) stays offered when the list no longer has it, said as
 * removed once the list is read (as loading before).
 */
export function hostChoices(hosts: readonly Pick<Host, 'id' | 'name' | 'state'>[], current: string | null, loaded: boolean): HostChoice[] {
  const out: HostChoice[] = [{ value: '', label: THIS_COMPUTER }];
  if (current && !hosts.some((h) => h.id === current)) {
    out.push({ value: current, label: loaded ? 'A removed host' : 'Its host (loading…)' });
  }
  for (const h of hosts) out.push({ value: h.id, label: hostChoiceLabel(h) });
  return out;
}

/**
 * Where an agent's or a task's runs go, in words: "" for this computer,
 * "on Build box", "on a removed host" for a host the list no longer has
 * ("on another computer" until the list is read).
 */
export function placeWords(hostId: string | null | undefined, hosts: readonly Pick<Host, 'id' | 'name'>[], loaded: boolean): string {
  if (!hostId) return '';
  const h = hosts.find((x) => x.id === hostId);
  if (h) return `on ${h.name}`;
  return loaded ? 'on a removed host' : 'on another computer';
}

/** The backend's refusal of a host it does not have ("no host '<id>': …") in words without the id; other words unchanged. */
export function placementError(message: string): string {
  return /^no host '[^']*'/.test(message) ? 'That host was removed: choose another, or add it again in Settings → Hosts.' : message;
}

/** The catalog's runtimes a host lacks that can be installed there (an installer, not built in), by name. */
export function installable(
  h: Pick<Host, 'runtimes'>,
  runtimes: readonly Pick<RuntimeEntry, 'id' | 'name' | 'builtIn' | 'installCommand'>[],
): { id: string; name: string }[] {
  return runtimes
    .filter((r) => !r.builtIn && r.installCommand && !h.runtimes?.includes(r.id))
    .map((r) => ({ id: r.id, name: r.name }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** One line saying where an install on a host stands, from its latest event. */
export function installWords(hostName: string, runtimeName: string, ev: InstallEvent): string {
  switch (ev.type) {
    case 'progress':
      return `${hostName}: ${ev.message}`;
    case 'output':
      return `${hostName}: ${ev.line}`;
    case 'error':
      return `${runtimeName} was not installed on ${hostName}: ${ev.message}`;
    case 'complete':
      if (!ev.success) return `${runtimeName} was not installed on ${hostName}.`;
      return ev.warning ? `${runtimeName} is installed on ${hostName}, but ${ev.warning}` : `${runtimeName} is installed on ${hostName}.`;
  }
}
