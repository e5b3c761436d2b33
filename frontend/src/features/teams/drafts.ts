// What the composer of each room holds while its page is closed: a message
// typed and left, or the welcome's suggested first message.

const drafts = new Map<string, string>();

export function draftOf(teamId: string): string {
  return drafts.get(teamId) ?? '';
}

export function setDraft(teamId: string, text: string): void {
  if (text === '') drafts.delete(teamId);
  else drafts.set(teamId, text);
}
