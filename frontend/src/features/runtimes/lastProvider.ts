// The provider a person last connected for each runtime, for this page's
// life: after a disconnect the connect form starts on that provider again
// (not on the first in the list), so reconnecting is paste-and-go.

const last = new Map<string, string>();

export function rememberProvider(runtimeId: string, providerId: string): void {
  if (providerId) last.set(runtimeId, providerId);
}

/** The provider to start a runtime's connect form on: the one last connected, when it is still offered. */
export function startingProvider(runtimeId: string, offered: readonly { id: string }[]): string | undefined {
  const id = last.get(runtimeId);
  return id !== undefined && offered.some((k) => k.id === id) ? id : undefined;
}
