// The one rule for sending from a composer (the room, an agent's chat, any
// steering box): Enter sends, Shift+Enter is a new line. Every composer
// says so in its placeholder (SEND_HINT) and decides by sendsOnEnter.

/** What each composer's placeholder says about sending. */
export const SEND_HINT = 'Enter sends, Shift+Enter for a new line.';

/** True for the key that sends: Enter alone (not while an input method is composing). */
export function sendsOnEnter(e: Pick<KeyboardEvent, 'key' | 'shiftKey' | 'isComposing' | 'altKey' | 'ctrlKey' | 'metaKey'>): boolean {
  return e.key === 'Enter' && !e.shiftKey && !e.isComposing && !e.altKey && !e.ctrlKey && !e.metaKey;
}
