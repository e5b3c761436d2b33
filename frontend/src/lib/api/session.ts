// What the page does when the server says its login is gone (a 401: the
// token was rotated, or the session cookie expired). The server answers
// a page load without a valid session with its short "log in" page, so
// reloading once is how the person is shown the way back in: never a
// page full of errors that each say "unauthorized".

let ended = false;
let onEnded: () => void = () => {
  if (typeof location !== 'undefined') location.reload();
};

/** Called for every 401 the API or an event stream answers; acts once. */
export function sessionEnded(): void {
  if (ended) return;
  ended = true;
  onEnded();
}

/** For tests: what happens instead of a reload, and a fresh start. */
export function onSessionEnded(fn: () => void): void {
  ended = false;
  onEnded = fn;
}
