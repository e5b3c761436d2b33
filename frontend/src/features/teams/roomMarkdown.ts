// A small, safe markdown for room posts. Agents write markdown; the room
// shows it as text with structure, never as HTML: parseMarkdown makes a
// tree of blocks and inlines from plain text, and markdownNodes builds DOM
// nodes from it with createElement and textContent only (no innerHTML, so
// nothing an agent writes can become markup). What it knows: paragraphs
// (a single newline stays a line break), headings (drawn as bold lines),
// bullet and numbered lists, fenced code, inline code, bold, italic, and
// links whose target is http(s) (any other link stays its text). Bare
// http(s) URLs become links too.

export type Inline =
  | { t: 'text'; s: string }
  | { t: 'br' }
  | { t: 'code'; s: string }
  | { t: 'b'; c: Inline[] }
  | { t: 'i'; c: Inline[] }
  | { t: 'a'; href: string; c: Inline[] };

export type Block =
  | { type: 'p'; c: Inline[] }
  | { type: 'h'; c: Inline[] }
  | { type: 'ul'; items: Inline[][] }
  | { type: 'ol'; start: number; items: Inline[][] }
  | { type: 'code'; text: string };

// Anything that could be markdown; a post without any of it is plain text (the fast path).
const MAYBE = /[*_`[]|https?:\/\/|^\s*(?:[-+*]|\d{1,9}[.)]|#{1,6})\s/m;

/** True when `text` may hold markdown; false means it renders as plain text. */
export function mayBeMarkdown(text: string): boolean {
  return MAYBE.test(text);
}

const BULLET = /^\s{0,3}[-+*]\s+(.*)$/;
const NUMBERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/** The blocks of `text`. */
export function parseMarkdown(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: Block[] = [];
  let para: string[] = [];
  const flush = (): void => {
    if (para.length) out.push({ type: 'p', c: parseInline(para.join('\n')) });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const mark = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(mark)) body.push(lines[i++]!);
      out.push({ type: 'code', text: body.join('\n') });
      continue;
    }
    if (line.trim() === '') {
      flush();
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      flush();
      out.push({ type: 'h', c: parseInline(h[1]!) });
      continue;
    }
    const b = BULLET.exec(line);
    const n = b ? null : NUMBERED.exec(line);
    if (b || n) {
      flush();
      const items: Inline[][] = [];
      const re = b ? BULLET : NUMBERED;
      let item = b ? b[1]! : n![2]!;
      for (i++; i < lines.length; i++) {
        const next = lines[i]!;
        const m = re.exec(next);
        if (m) {
          items.push(parseInline(item));
          item = b ? m[1]! : m[2]!;
        } else if (next.trim() !== '' && /^\s/.test(next) && !FENCE.test(next)) {
          item += '\n' + next.trim(); // an indented line continues its item
        } else break;
      }
      items.push(parseInline(item));
      i--;
      out.push(b ? { type: 'ul', items } : { type: 'ol', start: Number(n![1]), items });
      continue;
    }
    para.push(line);
  }
  flush();
  return out;
}

const SAFE_URL = /^https?:\/\/[^\s<>"']+$/i;

/** A link target the room follows: http(s) only, nothing else (no javascript:, data:, file:). */
export function safeHref(url: string): string | null {
  const u = url.trim();
  return SAFE_URL.test(u) ? u : null;
}

const BARE_URL = /https?:\/\/[^\s<>"'`]+/y;

/** The inlines of a paragraph's text. */
export function parseInline(s: string): Inline[] {
  const out: Inline[] = [];
  let text = '';
  const push = (n: Inline): void => {
    if (text) out.push({ t: 'text', s: text });
    text = '';
    out.push(n);
  };
  let i = 0;
  while (i < s.length) {
    const ch = s[i]!;
    if (ch === '\n') {
      push({ t: 'br' });
      i++;
      continue;
    }
    if (ch === '\\' && i + 1 < s.length && /[\\`*_[\]()#+\-.!]/.test(s[i + 1]!)) {
      text += s[i + 1];
      i += 2;
      continue;
    }
    if (ch === '`') {
      let ticks = 1;
      while (s[i + ticks] === '`') ticks++;
      const mark = '`'.repeat(ticks);
      const end = s.indexOf(mark, i + ticks);
      if (end > i) {
        push({ t: 'code', s: s.slice(i + ticks, end).replace(/^ (.+) $/, '$1') });
        i = end + ticks;
        continue;
      }
      text += mark;
      i += ticks;
      continue;
    }
    if ((ch === '*' || ch === '_') && s[i + 1] === ch) {
      const end = s.indexOf(ch + ch, i + 2);
      if (end > i + 2 && s[i + 2] !== ' ') {
        push({ t: 'b', c: parseInline(s.slice(i + 2, end)) });
        i = end + 2;
        continue;
      }
    }
    if (ch === '*' || ch === '_') {
      // _ only at a word's edge (snake_case stays text); the span must not start with a space.
      const wordBefore = i > 0 && /\w/.test(s[i - 1]!);
      if (!(ch === '_' && wordBefore) && s[i + 1] !== undefined && s[i + 1] !== ' ' && s[i + 1] !== ch) {
        let end = s.indexOf(ch, i + 1);
        while (end > 0 && ch === '_' && /\w/.test(s[end + 1] ?? '')) end = s.indexOf(ch, end + 1);
        if (end > i + 1 && s[end - 1] !== ' ' && !s.slice(i + 1, end).includes('\n')) {
          push({ t: 'i', c: parseInline(s.slice(i + 1, end)) });
          i = end + 1;
          continue;
        }
      }
    }
    if (ch === '[') {
      const close = s.indexOf('](', i + 1);
      const end = close > 0 ? s.indexOf(')', close + 2) : -1;
      if (close > 0 && end > 0 && !s.slice(i + 1, close).includes('\n')) {
        const href = safeHref(s.slice(close + 2, end));
        const label = parseInline(s.slice(i + 1, close));
        if (href) push({ t: 'a', href, c: label });
        else {
          // Not a link the room follows: its words stay, its target goes.
          for (const n of label) push(n);
        }
        i = end + 1;
        continue;
      }
    }
    if (ch === 'h' && (i === 0 || !/\w/.test(s[i - 1]!))) {
      BARE_URL.lastIndex = i;
      const m = BARE_URL.exec(s);
      if (m) {
        const url = m[0].replace(/[.,;:!?)]+$/, '');
        push({ t: 'a', href: url, c: [{ t: 'text', s: url }] });
        i += url.length;
        continue;
      }
    }
    text += ch;
    i++;
  }
  if (text) out.push({ t: 'text', s: text });
  return out;
}

function inlineNodes(doc: Document, parent: Node, ns: readonly Inline[]): void {
  for (const n of ns) {
    switch (n.t) {
      case 'text':
        parent.appendChild(doc.createTextNode(n.s));
        break;
      case 'br':
        parent.appendChild(doc.createElement('br'));
        break;
      case 'code': {
        const c = doc.createElement('code');
        c.textContent = n.s;
        parent.appendChild(c);
        break;
      }
      case 'b':
      case 'i': {
        const e = doc.createElement(n.t === 'b' ? 'strong' : 'em');
        inlineNodes(doc, e, n.c);
        parent.appendChild(e);
        break;
      }
      case 'a': {
        const a = doc.createElement('a');
        a.href = n.href;
        a.target = '_blank';
        a.rel = 'noopener noreferrer';
        inlineNodes(doc, a, n.c);
        parent.appendChild(a);
        break;
      }
    }
  }
}

/** The DOM of `text` rendered as markdown, into `parent` (text nodes and a fixed set of elements only). */
export function renderMarkdown(parent: HTMLElement, text: string): void {
  const doc = parent.ownerDocument;
  for (const b of parseMarkdown(text)) {
    switch (b.type) {
      case 'p':
      case 'h': {
        const p = doc.createElement('p');
        if (b.type === 'h') {
          const s = doc.createElement('strong');
          inlineNodes(doc, s, b.c);
          p.appendChild(s);
        } else inlineNodes(doc, p, b.c);
        parent.appendChild(p);
        break;
      }
      case 'ul':
      case 'ol': {
        const l = doc.createElement(b.type);
        if (b.type === 'ol' && b.start !== 1) l.setAttribute('start', String(b.start));
        for (const it of b.items) {
          const li = doc.createElement('li');
          inlineNodes(doc, li, it);
          l.appendChild(li);
        }
        parent.appendChild(l);
        break;
      }
      case 'code': {
        const pre = doc.createElement('pre');
        const c = doc.createElement('code');
        c.textContent = b.text;
        pre.appendChild(c);
        parent.appendChild(pre);
        break;
      }
    }
  }
}
