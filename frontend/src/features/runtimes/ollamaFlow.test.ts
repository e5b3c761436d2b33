import { describe, expect, it } from 'vitest';
import type { ConnectionState, HealthCheckResult } from '../../lib/api/types';
import { connectOllama, OLLAMA_DEFAULT_URL, type OllamaClient } from './ollamaFlow';

function client(saved: string | null, hc: HealthCheckResult) {
  const calls: string[] = [];
  let current = saved;
  const c: OllamaClient = {
    async ollamaURL() {
      return current;
    },
    async setOllamaURL(url: string | null): Promise<ConnectionState> {
      calls.push(`set ${url}`);
      current = url;
      return url ? 'ready' : 'needs-auth';
    },
    async healthcheckOllama(baseUrl?: string) {
      calls.push(`check ${baseUrl ?? 'configured'}`);
      return hc;
    },
    async connect(id: string, req: { provider: string }) {
      calls.push(`connect ${id} ${req.provider}`);
      return { connectionState: 'ready' as ConnectionState };
    },
  };
  return { c, calls, now: () => current };
}

describe('connectOllama', () => {
  it('checks the default address when none is typed or saved, then saves it', async () => {
    const { c, calls } = client(null, { ok: true });
    expect(await connectOllama(c, '  ')).toEqual({ ok: true, state: 'ready', url: OLLAMA_DEFAULT_URL });
    expect(calls).toEqual([`check ${OLLAMA_DEFAULT_URL}`, `set ${OLLAMA_DEFAULT_URL}`, 'connect clawboo-native ollama']);
  });

  it('saves a typed address once Ollama answers there', async () => {
    const { c, now } = client('http://old:11434', { ok: true });
    expect(await connectOllama(c, ' http://gpu-box:11434 ')).toMatchObject({ ok: true, url: 'http://gpu-box:11434' });
    expect(now()).toBe('http://gpu-box:11434');
  });

  it('saves nothing when Ollama does not answer, and says so', async () => {
    const { c, calls, now } = client('http://old:11434', { ok: false, error: 'Could not reach Ollama (local).' });
    const out = await connectOllama(c, 'http://nowhere:1');
    expect(out).toEqual({ ok: false, error: 'Ollama does not answer at http://nowhere:1: Could not reach Ollama (local). Nothing was saved.' });
    expect(now()).toBe('http://old:11434');
    expect(calls).toEqual(['check http://nowhere:1']);
  });

  it('only checks when OLLAMA_BASE_URL sets it up and nothing is typed', async () => {
    const { c, calls } = client(null, { ok: true });
    expect(await connectOllama(c, '', true)).toEqual({ ok: true, state: 'ready', url: 'OLLAMA_BASE_URL' });
    expect(calls).toEqual(['check configured', 'connect clawboo-native ollama']);
  });

  it('refuses a typed address while OLLAMA_BASE_URL wins over it', async () => {
    const { c, calls } = client(null, { ok: true });
    const out = await connectOllama(c, 'http://gpu-box:11434', true);
    expect(out.ok).toBe(false);
    expect(calls).toEqual([]);
  });
});
