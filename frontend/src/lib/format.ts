// Small formatting helpers shared by the views.

/** "just now", "42s ago", "5m ago", "3h ago", "2d ago", or a date for older times. */
export function relativeTime(ms: number, now: number): string {
  const s = Math.round((now - ms) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ago`;
  const d = Math.floor(h / 24);
  if (d < 30) return `${d}d ago`;
  return new Date(ms).toISOString().slice(0, 10);
}

/** "12.3s", "4m 05s": how long a run took or has been running. */
export function duration(ms: number): string {
  if (ms < 0) ms = 0;
  if (ms < 1000) return `${ms}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  const rest = Math.floor(s % 60);
  return `${m}m ${String(rest).padStart(2, '0')}s`;
}

/** US dollars with enough precision for sub-cent model costs. */
export function usd(v: number): string {
  if (v === 0) return '$0.00';
  if (Math.abs(v) < 0.0001) return v > 0 ? '<$0.0001' : '-<$0.0001';
  if (Math.abs(v) < 0.01) return `$${v.toFixed(4)}`;
  return `$${v.toFixed(2)}`;
}

/** 1234567 -> "1,234,567". */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** The first characters of a long id, for dense lists (the full id stays in a title). */
export function shortId(id: string): string {
  return id.length > 10 ? `${id.slice(0, 4)}…${id.slice(-6)}` : id;
}

/** 87 -> "87 B", 1536 -> "1.5 KB", 3_500_000 -> "3.3 MB" (binary units, as disk tools show). */
export function bytes(n: number): string {
  if (!Number.isFinite(n) || n < 1024) return `${Math.max(0, Math.round(Number.isFinite(n) ? n : 0))} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = -1;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}
