// The room's posts as plain DOM, built by hand: a thousand posts are a
// thousand cloned <li>s with their text set, and nothing reactive per post
// (Svelte's per-item effects made a 1,000-post room take several times as
// long). Posts only ever arrive, so an update appends what is new; an
// out-of-order post or a change of the members' names rebuilds the list.
// A body is markdown drawn by roomMarkdown (DOM nodes, never HTML); a post
// about a task links to its drawer, and to its diff when it has one: the
// links' words follow the room's task titles (updated in place, by id).

import { routeHash } from '../../lib/route';
import type { Member, Post } from '../../lib/api/teamTypes';
import { assigneeLabel, namedBody, postStyle, taskIdsIn, type TaskInfo } from './room';
import { mayBeMarkdown, renderMarkdown } from './roomMarkdown';

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

export type TaskInfos = ReadonlyMap<string, TaskInfo>;

/** The words of a post's task link: the task's title once known. */
export function taskLinkText(info: TaskInfo | undefined): string {
  return info ? `Task “${info.title}”` : 'Open the task';
}

function setTaskLinks(box: HTMLElement, info: TaskInfo | undefined): void {
  const [task, diff] = box.children as unknown as [HTMLAnchorElement, HTMLAnchorElement];
  task.textContent = taskLinkText(info);
  diff.hidden = !info?.hasDiff;
}

function taskLinks(p: Post, teamId: string, info: TaskInfo | undefined): HTMLElement {
  const box = document.createElement('div');
  box.className = 'tasklinks';
  box.setAttribute('data-task-id', p.taskId!);
  const task = document.createElement('a');
  task.setAttribute('data-testid', 'team-post-task');
  task.href = routeHash({ page: 'board', taskId: p.taskId, teamId });
  const diff = document.createElement('a');
  diff.setAttribute('data-testid', 'team-post-diff');
  diff.href = routeHash({ page: 'board', taskId: p.taskId, teamId, show: 'diff' });
  diff.textContent = 'See the diff';
  box.append(task, diff);
  setTaskLinks(box, info);
  return box;
}

/** One post's <li>: author by name, "→ @assignee" on a delegation, the time, the body, its task's links. */
export function postElement(p: Post, members: readonly Member[], tasks: TaskInfos = new Map(), teamId = p.teamId): HTMLLIElement {
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
  const body = li.lastChild as HTMLElement;
  // Clawboo's own texts may name a task by id: said as its title instead (redrawn when titles come in).
  const text = namedBody(p, tasks);
  if (text !== p.body) li.setAttribute('data-names-tasks', '');
  if (mayBeMarkdown(text)) {
    body.classList.add('md');
    renderMarkdown(body, text);
  } else body.textContent = text;
  if (p.taskId) li.appendChild(taskLinks(p, teamId, tasks.get(p.taskId)));
  return li;
}

const membersKey = (ms: readonly Member[]): string => ms.map((m) => `${m.agentId}\u0000${m.name}`).join('\u0001');

/** Keeps an <ol> showing `posts`; remembers what it drew to append only what is new. */
export class PostDom {
  private shown: readonly Post[] = [];
  private key = '';
  private tasks: TaskInfos = new Map();

  constructor(
    private readonly el: HTMLElement,
    private readonly teamId = '',
  ) {}

  update(posts: readonly Post[], members: readonly Member[], tasks: TaskInfos = this.tasks): void {
    if (tasks !== this.tasks) {
      this.tasks = tasks;
      // Titles and diffs came in: the links already drawn take their words, and posts naming tasks are redrawn.
      for (const box of this.el.querySelectorAll<HTMLElement>('.tasklinks')) setTaskLinks(box, tasks.get(box.getAttribute('data-task-id') ?? ''));
      for (const li of this.el.querySelectorAll<HTMLLIElement>('li[data-names-tasks]')) {
        const seq = Number(li.getAttribute('data-seq'));
        const p = this.shown.find((x) => x.seq === seq);
        if (p && taskIdsIn(p).length) li.replaceWith(postElement(p, members, tasks, this.teamId || p.teamId));
      }
    }
    const key = membersKey(members);
    const n = this.shown.length;
    // Posts are only added: the old list is a prefix exactly when its last post is still in its place.
    const appendable = key === this.key && posts.length >= n && (n === 0 || posts[n - 1] === this.shown[n - 1]);
    const from = appendable ? n : 0;
    if (appendable && from === posts.length) return;
    const frag = document.createDocumentFragment();
    for (let i = from; i < posts.length; i++) frag.appendChild(postElement(posts[i]!, members, tasks, this.teamId || posts[i]!.teamId));
    if (appendable) this.el.appendChild(frag);
    else this.el.replaceChildren(frag);
    this.shown = posts;
    this.key = key;
  }
}

/** How long a diff link waits for the drawer to show the task's diff. */
const REVEAL_WITHIN_MS = 10_000;

/**
 * A click on a post's diff link: the link opens the task's drawer (its
 * href), and once the drawer has read the diff, the diff is brought into
 * view and focused, so "See the diff" lands on the diff.
 */
export function revealDiffOnOpen(e: MouseEvent): void {
  const a = (e.target as Element | null)?.closest?.('a[data-testid="team-post-diff"]');
  const id = a?.parentElement?.getAttribute('data-task-id');
  if (!id) return;
  const find = (): HTMLElement | null =>
    document.querySelector<HTMLElement>(`[data-testid="task-drawer"][data-task-id="${CSS.escape(id)}"] [data-testid="task-diff"]:not([data-changed=""])`);
  const reveal = (el: HTMLElement): void => {
    el.scrollIntoView({ block: 'start' });
    if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
    el.focus({ preventScroll: true });
  };
  const seen = find();
  if (seen) return reveal(seen);
  const watch = new MutationObserver(() => {
    const el = find();
    if (!el) return;
    watch.disconnect();
    clearTimeout(give);
    reveal(el);
  });
  watch.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-changed'] });
  const give = setTimeout(() => watch.disconnect(), REVEAL_WITHIN_MS);
}
