import { describe, expect, it } from 'vitest';
import type { InstallEvent } from '../../lib/api/types';
import { InstallLog, MAX_LOG_LINES } from './installLog';

const out = (line: string, stream: 'stdout' | 'stderr' = 'stdout'): InstallEvent => ({ type: 'output', line, stream });

function fold(...evs: InstallEvent[]): InstallLog {
  const log = new InstallLog();
  for (const e of evs) log.push(e);
  return log;
}

describe('InstallLog', () => {
  it('follows a successful install: progress, output, complete', () => {
    const log = fold(
      { type: 'progress', step: 'installing', message: 'Installing Claude Code…' },
      out('added 3 packages'),
      out('', 'stdout'),
      { type: 'complete', success: true },
    );
    log.end({ kind: 'eof' }); // the stream's close after complete changes nothing
    const v = log.view();
    expect(v.status).toBe('succeeded');
    expect(v.progress).toBe('Installing Claude Code…');
    expect(v.lines.map((l) => [l.kind, l.text])).toEqual([
      ['progress', 'Installing Claude Code…'],
      ['stdout', 'added 3 packages'],
      ['stdout', ''],
    ]);
    expect(v.errors).toEqual([]);
    expect(v.warning).toBeNull();
  });

  it('keeps going after EACCES, whose advice stays, and fails on the exit that follows', () => {
    const log = fold(
      out('npm error code EACCES', 'stderr'),
      { type: 'error', code: 'EACCES', message: 'Permission denied… Try: sudo npm install -g x' },
    );
    expect(log.view().status).toBe('running');
    log.push(out('npm error more', 'stderr'));
    log.push({ type: 'error', code: 'EXIT_243', message: 'The installer exited with status 243.' });
    log.push(out('late line')); // nothing counts once it has failed
    const v = log.view();
    expect(v.status).toBe('failed');
    expect(v.errors.map((e) => e.code)).toEqual(['EACCES', 'EXIT_243']);
    expect(v.lines.at(-1)).toMatchObject({ kind: 'error', text: 'The installer exited with status 243.' });
    expect(v.lines.some((l) => l.text === 'late line')).toBe(false);
  });

  it('keeps the warning of an install whose CLI cannot be found yet', () => {
    const v = fold({ type: 'complete', success: true, warning: 'not on PATH' }).view();
    expect(v).toMatchObject({ status: 'succeeded', warning: 'not on PATH' });
  });

  it('keeps only the newest lines and counts the hidden ones, with stable keys', () => {
    const log = new InstallLog();
    for (let i = 0; i < 1234; i++) log.push(out(`line ${i}`));
    const v = log.view();
    expect(v.lines).toHaveLength(MAX_LOG_LINES);
    expect(v.hidden).toBe(1234 - MAX_LOG_LINES);
    expect(v.lines[0]).toEqual({ n: 1234 - MAX_LOG_LINES, text: `line ${1234 - MAX_LOG_LINES}`, kind: 'stdout' });
    expect(v.lines.at(-1)?.text).toBe('line 1233');
  });

  it('calls a stream that ends before complete a failure, in words', () => {
    const log = fold(out('half'));
    log.end({ kind: 'eof' });
    expect(log.view()).toMatchObject({ status: 'failed', errors: [{ code: 'ENDED' }] });
  });

  it('records a refusal or a lost connection as the error', () => {
    const log = new InstallLog();
    log.end({ kind: 'error', code: 'HTTP_409', message: 'an install of codex is already running' });
    expect(log.view()).toMatchObject({
      status: 'failed',
      errors: [{ code: 'HTTP_409', message: 'an install of codex is already running' }],
    });
  });

  it('says when the user stopped it', () => {
    const log = fold(out('working'));
    log.end({ kind: 'stopped' });
    expect(log.view()).toMatchObject({ status: 'stopped', progress: 'Install stopped.', errors: [] });
  });

  it('hands out snapshots that later events do not change', () => {
    const log = fold(out('a'));
    const before = log.view();
    log.push(out('b'));
    expect(before.lines).toHaveLength(1);
    expect(log.view().lines).toHaveLength(2);
  });
});
