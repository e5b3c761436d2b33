import { describe, expect, it } from 'vitest';
import { SseParser, SseTooLargeError, type SseMessage } from './parser';

const enc = new TextEncoder();

/** Parses a whole stream fed as the given byte chunks, then ends it. */
function parseChunks(chunks: Uint8Array[], parser = new SseParser()): SseMessage[] {
  const out: SseMessage[] = [];
  for (const c of chunks) out.push(...parser.push(c));
  out.push(...parser.end());
  return out;
}

function parse(text: string): SseMessage[] {
  return parseChunks([enc.encode(text)]);
}

const msg = (data: string, id = '', event = 'message'): SseMessage => ({ event, data, id });

// A stream exercising every feature with mixed line endings and multi-byte
// characters (2-, 3- and 4-byte UTF-8) right next to line ends.
const FIXTURE =
  'retry: 1000\n\n' +
  ': ping\r\n\r\n' +
  'id: 1\ndata: {"text":"héllo"}\n\n' +
  'id: 2\revent: run\rdata: 日本語\rdata: second line\r\r' +
  'id: 3\r\ndata: 🦀🦀\r\n: comment between fields\r\ndata\r\n\r\n' +
  'data:no-space\ndata:  two spaces\n\n' +
  'id: 4\nevent: ignored-without-data\n\n' +
  'data: é\n\n';

const FIXTURE_EXPECTED: SseMessage[] = [
  msg('{"text":"héllo"}', '1'),
  msg('日本語\nsecond line', '2', 'run'),
  msg('🦀🦀\n', '3'),
  msg('no-space\n two spaces', '3'),
  msg('é', '4'),
];

describe('SseParser', () => {
  it('parses the fixture in one chunk', () => {
    expect(parse(FIXTURE)).toEqual(FIXTURE_EXPECTED);
  });

  it('gives the same messages when the bytes are split at every offset', () => {
    const bytes = enc.encode(FIXTURE);
    for (let i = 0; i <= bytes.length; i++) {
      const got = parseChunks([bytes.subarray(0, i), bytes.subarray(i)]);
      expect(got, `split at byte ${i}`).toEqual(FIXTURE_EXPECTED);
    }
  });

  it('gives the same messages when split at every pair of offsets', () => {
    const bytes = enc.encode(FIXTURE);
    for (let i = 0; i <= bytes.length; i += 1) {
      for (let j = i; j <= bytes.length; j += 3) {
        const got = parseChunks([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)]);
        expect(got, `split at ${i} and ${j}`).toEqual(FIXTURE_EXPECTED);
      }
    }
  });

  it('gives the same messages one byte at a time', () => {
    const bytes = enc.encode(FIXTURE);
    const chunks = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    expect(parseChunks(chunks)).toEqual(FIXTURE_EXPECTED);
  });

  it('returns messages as soon as their blank line arrives', () => {
    const p = new SseParser();
    expect(p.pushText('id: 7\ndata: a\n')).toEqual([]);
    expect(p.pushText('\n')).toEqual([msg('a', '7')]);
    expect(p.lastEventId).toBe('7');
  });

  it('joins multi-line data with newlines and keeps empty data lines', () => {
    expect(parse('data: one\ndata: two\ndata:\ndata: four\n\n')).toEqual([msg('one\ntwo\n\nfour')]);
    expect(parse('data:\n\n')).toEqual([msg('')]);
  });

  it('accepts CR-only line endings', () => {
    expect(parse('id: 1\rdata: a\rdata: b\r\rdata: c\r\r')).toEqual([msg('a\nb', '1'), msg('c', '1')]);
  });

  it('treats a CRLF split across chunks as one line end', () => {
    const p = new SseParser();
    expect(p.pushText('data: a\r')).toEqual([]);
    // Were the LF read as a second line end, "a" would be dispatched alone.
    expect(p.pushText('\ndata: b\r\n\r\n')).toEqual([msg('a\nb')]);
  });

  it('treats a CR at a chunk end followed by other text as a line end', () => {
    const p = new SseParser();
    expect(p.pushText('data: a\r')).toEqual([]);
    expect(p.pushText('\rdata: b\n\n')).toEqual([msg('a'), msg('b')]);
  });

  it('strips one BOM at the start of the stream, even split across chunks', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    const body = enc.encode('data: x\n\n');
    const whole = new Uint8Array([...bom, ...body]);
    expect(parseChunks([whole])).toEqual([msg('x')]);
    expect(parseChunks([whole.subarray(0, 1), whole.subarray(1, 2), whole.subarray(2)])).toEqual([msg('x')]);
    // A BOM as the start of text input is stripped too; a later one is data.
    const p = new SseParser();
    expect(p.pushText('\uFEFFdata: y\n\n')).toEqual([msg('y')]);
    expect(p.pushText('data: \uFEFFz\n\n')).toEqual([msg('\uFEFFz')]);
  });

  it('without a BOM the first field is not mistaken for one', () => {
    expect(parse('data: x\n\n')).toEqual([msg('x')]);
  });

  it('discards an event the stream ends in the middle of, and does not commit its id', () => {
    const p = new SseParser({ lastEventId: '4' });
    const got = parseChunks([enc.encode('id: 5\ndata: done\n\nid: 6\ndata: half')], p);
    expect(got).toEqual([msg('done', '5')]);
    expect(p.lastEventId).toBe('5');
    // The same holds when only the final newline is missing.
    expect(parse('data: a\n\ndata: b\n')).toEqual([msg('a')]);
  });

  it('ignores comments anywhere, including the server keep-alive', () => {
    expect(parse(': ping\n\n:\ndata: a\n: inside\ndata: b\n\n: ping\n\n')).toEqual([msg('a\nb')]);
  });

  it('keeps the last id across events, resets it with an empty id, ignores ids with NUL', () => {
    const p = new SseParser();
    const got = parseChunks([enc.encode('id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 9\0\ndata: d\n\n')], p);
    expect(got).toEqual([msg('a', '1'), msg('b', '1'), msg('c', ''), msg('d', '')]);
  });

  it('commits an id even from an event with no data', () => {
    const p = new SseParser();
    expect(p.pushText('id: 42\n\n')).toEqual([]);
    expect(p.lastEventId).toBe('42');
  });

  it('starts from a given last event id', () => {
    const p = new SseParser({ lastEventId: '10' });
    expect(p.pushText('data: x\n\n')).toEqual([msg('x', '10')]);
  });

  it('reads retry only when it is all digits', () => {
    const p = new SseParser();
    p.pushText('retry: 1500\n\n');
    expect(p.retry).toBe(1500);
    p.pushText('retry: 12a\n\nretry: -5\n\nretry:\n\n');
    expect(p.retry).toBe(1500);
  });

  it('resets the event type after each dispatch and ignores unknown fields', () => {
    expect(parse('event: run\nfoo: bar\ndata: 1\n\ndata: 2\n\n')).toEqual([msg('1', '', 'run'), msg('2')]);
  });

  it('keeps a colon inside the value and a field named by the whole line', () => {
    expect(parse('data: a: b\n\ndata\n\n')).toEqual([msg('a: b'), msg('')]);
  });

  it('replaces invalid UTF-8 with U+FFFD instead of failing', () => {
    const bytes = new Uint8Array([...enc.encode('data: a'), 0xff, ...enc.encode('b\n\n')]);
    expect(parseChunks([bytes])).toEqual([msg('a\uFFFDb')]);
  });

  it('completes a multi-byte character split at the very end of the stream as U+FFFD', () => {
    const crab = enc.encode('🦀');
    const bytes = new Uint8Array([...enc.encode('data: '), ...crab.subarray(0, 2)]);
    const p = new SseParser();
    expect(p.push(bytes)).toEqual([]);
    expect(p.end()).toEqual([]); // incomplete event: discarded, no throw
  });

  it('parses a huge stream of small events in chunks', () => {
    const n = 100_000;
    let text = 'retry: 1000\n\n';
    for (let i = 1; i <= n; i++) text += `id: ${i}\ndata: {"seq":${i},"text":"x"}\n\n`;
    const bytes = enc.encode(text);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 65_521) chunks.push(bytes.subarray(i, i + 65_521));
    const p = new SseParser();
    const got = parseChunks(chunks, p);
    expect(got).toHaveLength(n);
    expect(got[n - 1]).toEqual(msg(`{"seq":${n},"text":"x"}`, String(n)));
    expect(got.every((m, i) => m.id === String(i + 1))).toBe(true);
    expect(p.lastEventId).toBe(String(n));
  });

  it('reads one very long line arriving in many pieces in linear time', () => {
    const p = new SseParser();
    const piece = 'y'.repeat(5_000);
    const started = performance.now();
    p.pushText('data: ');
    for (let i = 0; i < 2_000; i++) p.pushText(piece);
    const got = p.pushText('\n\n');
    expect(got).toHaveLength(1);
    expect(got[0]?.data.length).toBe(10_000_000);
    // Quadratic rescanning of 10 MB in 2,000 steps would take tens of seconds.
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('refuses a line or event larger than its bound', () => {
    const p = new SseParser({ maxEventSize: 100 });
    expect(() => p.pushText('data: ' + 'z'.repeat(200))).toThrow(SseTooLargeError);
    const q = new SseParser({ maxEventSize: 100 });
    expect(() => {
      for (let i = 0; i < 20; i++) q.pushText('data: 0123456789\n');
    }).toThrow(SseTooLargeError);
    // Many small complete events never trip it.
    const r = new SseParser({ maxEventSize: 100 });
    for (let i = 0; i < 1_000; i++) expect(r.pushText('data: 0123456789\n\n')).toHaveLength(1);
  });

  it('matches the stream the backend writes', () => {
    const wire =
      'retry: 1000\n\n' +
      'id: 1\ndata: {"runId":"r","seq":1,"ts":1,"kind":"status","phase":"init","model":"mock"}\n\n' +
      ': ping\n\n' +
      'event: run\ndata: {"id":"r","status":"running"}\n\n';
    const p = new SseParser();
    const got = parseChunks([enc.encode(wire)], p);
    expect(got.map((m) => [m.event, m.id])).toEqual([
      ['message', '1'],
      ['run', '1'],
    ]);
    expect(p.retry).toBe(1000);
  });
});
