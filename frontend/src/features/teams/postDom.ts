// The room's posts as plain DOM, built by hand: a thousand posts are a
// thousand cloned <li>s with their text set, and nothing reactive per post
// (Svelte's per-item effects made a 1,000-post room take several times as
// long). Posts only ever arrive, so an update appends what is new; an
// out-of-order post or a change of the members' names rebuilds the list.

import type { Member, Post } from '../../lib/api/teamTypes';
import { assigneeLabel, postStyle } from './room';

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
// Formatting a time is the costliest thing per post; posts of the same minute share one.
const minutes = new Map<number, string>();
function hhmm(ms: number): string {
  const m = Math.floor(ms / 60_000);
  let s = minutes.get(m);
  if (s === undefined) minutes.set(m, (s = clock.format(ms)));
  return s;
}

let template: HTMLLIElement | null = null;
function blank(): HTMLLIElement {
  if (!template) {
    template = document.createElement('li');
    template.setAttribute('data-testid', 'team-post');
    template.innerHTML = '<div class="head"><span class="author"></span><time></time></div><div class="body"></div>';
  }
  return template.cloneNode(true) as HTMLLIElement;
}

/** One post's <li>: author by name, "→ @assignee" on a delegation, the time, the body. */
export function postElement(p: Post, members: readonly Member[]): HTMLLIElement {
  const li = blank();
  const style = postStyle(p);
  li.className = `post ${style}`;
  li.setAttribute('data-seq', String(p.seq));
  li.setAttribute('data-kind', p.kind);
  li.setAttribute('data-author', p.authorAgentId);
  const head = li.firstChild as HTMLElement;
  (head.firstChild as HTMLElement).textContent = style === 'system' ? 'Clawboo' : p.authorName;
  if (p.kind === 'delegate') {
    const to = document.createElement('span');
    to.className = 'to';
    to.setAttribute('data-testid', 'team-post-assignee');
    to.textContent = assigneeLabel(p, members);
    head.insertBefore(to, head.lastChild);
  }
  (head.lastChild as HTMLElement).textContent = hhmm(p.createdAt);
  (li.lastChild as HTMLElement).textContent = p.body;
  return li;
}

const membersKey = (ms: readonly Member[]): string => ms.map((m) => `${m.agentId}\u0000${m.name}`).join('\u0001');

/** Keeps an <ol> showing `posts`; remembers what it drew to append only what is new. */
export class PostDom {
  private shown: readonly Post[] = [];
  private key = '';

  constructor(private readonly el: HTMLElement) {}

  update(posts: readonly Post[], members: readonly Member[]): void {
    const key = membersKey(members);
    const n = this.shown.length;
    // Posts are only added: the old list is a prefix exactly when its last post is still in its place.
    const appendable = key === this.key && posts.length >= n && (n === 0 || posts[n - 1] === this.shown[n - 1]);
    const from = appendable ? n : 0;
    if (appendable && from === posts.length) return;
    const frag = document.createDocumentFragment();
    for (let i = from; i < posts.length; i++) frag.appendChild(postElement(posts[i]!, members));
    if (appendable) this.el.appendChild(frag);
    else this.el.replaceChildren(frag);
    this.shown = posts;
    this.key = key;
  }
}
