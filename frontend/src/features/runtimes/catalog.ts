import type { RuntimeDescriptor, RuntimeEntry } from '../../lib/api/types';

/** The mock is a test runtime: runnable when enabled, never "available to add". */
export const MOCK_RUNTIME_ID = 'clawboo-mock';

/** The catalog minus what already runs here, and never the mock. */
export function catalogToAdd(
  runnable: readonly Pick<RuntimeEntry, 'id'>[],
  available: readonly RuntimeDescriptor[],
): RuntimeDescriptor[] {
  const have = new Set(runnable.map((r) => r.id));
  return available.filter((d) => d.id !== MOCK_RUNTIME_ID && !have.has(d.id));
}

/** Words for a connection state. */
export function connectionLabel(state: RuntimeEntry['connectionState']): string {
  switch (state) {
    case 'ready':
      return 'ready';
    case 'needs-auth':
      return 'needs a key';
    case 'needs-login':
      return 'needs a login';
    case 'not-installed':
      return 'not installed';
  }
}
