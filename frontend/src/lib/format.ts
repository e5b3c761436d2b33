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

/** The units a size is typed in (binary, as bytes() shows them: 1 MB = 1024 × 1024 bytes). */
export const SIZE_UNITS = { MB: 1024 * 1024, GB: 1024 * 1024 * 1024 } as const;
export type SizeUnit = keyof typeof SIZE_UNITS;

/** A size for an edit field: GB when it is at least 1 GB to a tenth exactly, else MB (two decimals at most); 0 → "" (none). */
export function editableSize(n: number): { value: string; unit: SizeUnit } {
  if (!Number.isFinite(n) || n <= 0) return { value: '', unit: 'GB' };
  const gb = n / SIZE_UNITS.GB;
  const tenths = Math.round(gb * 10);
  if (gb >= 1 && Math.abs(gb * 10 - tenths) < 1e-9) return { value: String(tenths / 10), unit: 'GB' };
  const mb = n / SIZE_UNITS.MB;
  return { value: String(Math.round(mb * 100) / 100), unit: 'MB' };
}

/**
 * Bytes from a typed size: "500" in the chosen unit, or with its own unit
 * ("1.5 GB", "500mb"); "" is 0 (none). An error says in words what is wrong.
 */
export function parseSize(text: string, unit: SizeUnit): { bytes: number } | { error: string } {
  const t = text.trim();
  if (t === '') return { bytes: 0 };
  const m = /^(-)?\s*(\d+(?:\.\d*)?|\.\d+)\s*(?:([mg])i?b?)?$/i.exec(t);
  if (!m) return { error: `“${t}” is not a size: type a number, like 500, in ${unit}, or leave it empty for none.` };
  if (m[1]) return { error: 'A size cannot be negative: type 0 or more, or leave it empty for none.' };
  const u: SizeUnit = m[3] ? (m[3].toLowerCase() === 'g' ? 'GB' : 'MB') : unit;
  const n = Math.round(Number(m[2]) * SIZE_UNITS[u]);
  if (!Number.isSafeInteger(n)) return { error: `${t} is too large: type at most a few million GB.` };
  return { bytes: n };
}

/** "14:02" for a time today, "2026-11-30 14:02" for another day (local time). */
export function clockTime(ms: number, now: number): string {
  const d = new Date(ms);
  const pad = (v: number): string => String(v).padStart(2, '0');
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  if (d.toDateString() === new Date(now).toDateString()) return hm;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${hm}`;
}
