// Small UI preferences in localStorage. Storage can be missing or throw
// (private modes, a webview without it); a preference is never worth an error.

export function loadSetting(key: string): string | null {
  try {
    return globalThis.localStorage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

export function saveSetting(key: string, value: string): void {
  try {
    globalThis.localStorage?.setItem(key, value);
  } catch {
    // Ignore: the preference just does not persist.
  }
}
