// Whether a runtime was set up on this computer: pages speak of a runtime
// (a warning, a note about what it reports) only when the person set it up.
// A catalog runtime is set up once installed (GET /api/runtimes); OpenClaw,
// which is not in the catalog, once a Gateway address or token was given or
// a connection was tried (GET /api/openclaw/status).

import type { OpenClawStatus } from '../../lib/api/openclawTypes';
import type { RuntimeEntry } from '../../lib/api/types';

export const OPENCLAW_ID = 'openclaw';

/** A catalog runtime is set up when it is installed here (built-ins always are). */
export function entrySetUp(e: Pick<RuntimeEntry, 'installed'> | undefined): boolean {
  return !!e?.installed;
}

/** OpenClaw is set up when the person gave it a Gateway (address or token) or it connected. */
export function openClawSetUp(s: Pick<OpenClawStatus, 'connection' | 'settings'> | null): boolean {
  if (!s) return false;
  return s.settings.url !== '' || s.settings.tokenSet || s.connection.status !== 'unconfigured';
}
