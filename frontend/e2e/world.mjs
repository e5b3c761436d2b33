// A controlled world for Runtimes-panel tests: a `clawboo serve` whose
// environment the test owns entirely. Its PATH holds only fake installers
// (npm, pipx) and a few shell tools, so no real npm, pipx, python, claude,
// codex or hermes is reachable; HOME is a temporary folder (where pipx puts
// hermes and codex login writes its credentials); keys live in the file
// vault; and every provider's base URL points at a fake provider API in this
// process that accepts one good key.

import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeChat } from './fakechat.mjs';
import { startServer } from './harness.mjs';

/** The one key the fake providers accept. */
export const GOOD_KEY = 'sk-good-e2e-0123456789';

/** Shell tools the fakes use besides sh's builtins, linked one by one (never all of /usr/bin, which has the real npm). */
const TOOLS = ['sh', 'mkdir', 'chmod', 'cat', 'env', 'sleep'];

/** Provider id → the base-URL variable the backend reads (config/providers.go). */
const BASE_URL_VARS = {
  anthropic: 'ANTHROPIC_BASE_URL',
  openai: 'OPENAI_BASE_URL',
  openrouter: 'OPENROUTER_BASE_URL',
  google: 'GEMINI_BASE_URL',
  xai: 'XAI_BASE_URL',
  groq: 'GROQ_BASE_URL',
  mistral: 'MISTRAL_BASE_URL',
  together: 'TOGETHER_BASE_URL',
  cerebras: 'CEREBRAS_BASE_URL',
  moonshot: 'MOONSHOT_BASE_URL',
};

/**
 * A fake of every provider's models endpoint at /<provider>/...: Anthropic
 * checks x-api-key, the OpenAI-compatible ones a bearer token, Ollama
 * (/ollama/api/tags) needs nothing. It records each request (provider,
 * path, the key it carried) for assertions. POST /openai/chat/completions
 * (with the good key) is `chat`, a scripted model (fakechat.mjs) that
 * answers 500 to whatever nobody scripted.
 */
export async function startFakeProviders({ port = 0, host = '127.0.0.1' } = {}) {
  const requests = [];
  const chat = createFakeChat();
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const [, provider, ...rest] = url.pathname.split('/');
    const path = `/${rest.join('/')}`;
    const key =
      provider === 'anthropic'
        ? (req.headers['x-api-key'] ?? null)
        : (req.headers.authorization ?? '').replace(/^Bearer /, '') || null;
    requests.push({ provider, path, key });
    const json = (status, body) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (provider === 'openai' && path === '/chat/completions') {
      if (req.method !== 'POST') return json(405, { error: { message: 'POST only' } });
      if (key !== GOOD_KEY) return json(401, { error: { message: 'invalid api key', type: 'invalid_request_error' } });
      const parts = [];
      req.on('data', (b) => parts.push(b));
      req.on('end', () => chat.handle(req, res, path, key, Buffer.concat(parts).toString('utf8')));
      return;
    }
    if (provider === 'ollama' && path === '/api/tags') return json(200, { models: [] });
    if (provider === 'anthropic' && path !== '/v1/models') return json(404, { error: 'not found' });
    if (provider !== 'anthropic' && path !== '/models') return json(404, { error: 'not found' });
    if (key !== GOOD_KEY) return json(401, { error: { message: 'invalid api key' } });
    return json(200, { data: [] });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const base = `http://${host}:${server.address().port}`;
  return {
    base,
    requests,
    chat,
    /** The base-URL variables pointing every keyed provider here. */
    env: Object.fromEntries(Object.entries(BASE_URL_VARS).map(([id, v]) => [v, `${base}/${id}`])),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A fake CLI: prints its version; codex also answers `codex login status` from its credential file. */
function cliScript(name) {
  if (name === 'codex') {
    return `#!/bin/sh
if [ "$1" = login ] && [ "$2" = status ]; then
  if [ -f "\${CODEX_HOME:-$HOME/.codex}/auth.json" ]; then echo "Logged in using ChatGPT"; exit 0; fi
  echo "Not logged in"; exit 1
fi
echo "codex-cli 0.0.0 (fake)"
`;
  }
  return `#!/bin/sh\necho "${name} 0.0.0 (fake)"\n`;
}

/**
 * The fake npm. `npm install -g <package>` prints npm-like output and puts
 * the package's CLI in the fake bin folder, as a global install would put
 * it on PATH. While <root>/npm-slow exists it waits first (a test can stop
 * it mid-install); while <root>/npm-no-bin exists it "succeeds" without
 * putting the CLI anywhere Clawboo looks. The "eacces" flavour fails like a global install into a
 * root-owned prefix: npm's EACCES text on stderr, exit 243.
 */
function npmScript(flavour, bin, root) {
  if (flavour === 'eacces') {
    return `#!/bin/sh
echo "npm error code EACCES" >&2
echo "npm error syscall mkdir" >&2
echo "npm error path /usr/local/lib/node_modules/@anthropic-ai" >&2
echo "npm error errno -13" >&2
echo "npm error Error: EACCES: permission denied, mkdir '/usr/local/lib/node_modules/@anthropic-ai'" >&2
echo "npm error The operation was rejected by your operating system." >&2
exit 243
`;
  }
  const write = (name) => `cat > "${bin}/${name}" <<'FAKE'\n${cliScript(name)}FAKE\nchmod +x "${bin}/${name}"`;
  return `#!/bin/sh
if [ "$1" != install ] || [ "$2" != -g ]; then echo "fake npm: unexpected arguments: $*" >&2; exit 2; fi
echo "npm http fetch GET 200 https://registry.npmjs.org/$3 (fake)"
while [ -f "${root}/npm-slow" ]; do sleep 0.1; done
echo "npm warn deprecated fake-dependency@1.0.0: this is the fake npm" >&2
if [ -f "${root}/npm-no-bin" ]; then echo "added 3 packages in 1s (binary placed elsewhere)"; exit 0; fi
case "$3" in
  @anthropic-ai/claude-code*) ${write('claude')} ;;
  @openai/codex*) ${write('codex')} ;;
  *) echo "fake npm: no such package $3" >&2; exit 1 ;;
esac
echo ""
echo "added 3 packages in 1s"
`;
}

/** The fake pipx: `pipx install <package>` puts hermes in ~/.local/bin, which is not on PATH. */
function pipxScript() {
  return `#!/bin/sh
if [ "$1" != install ]; then echo "fake pipx: unexpected arguments: $*" >&2; exit 2; fi
mkdir -p "$HOME/.local/bin"
cat > "$HOME/.local/bin/hermes" <<'FAKE'
${cliScript('hermes')}FAKE
chmod +x "$HOME/.local/bin/hermes"
echo "  installed package hermes-agent 0.9.0 (fake), installed using Python 3.12"
echo "  These apps are now globally available"
echo "    - hermes"
echo "done!"
`;
}

function which(tool) {
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin']) {
    if (existsSync(join(dir, tool))) return join(dir, tool);
  }
  throw new Error(`the e2e fakes need ${tool}, which is in none of /usr/bin, /bin, /usr/local/bin`);
}

/**
 * Builds a world and starts its server.
 *   npm: 'ok' | 'eacces' | null (no npm at all)
 *   pipx: whether the fake pipx is on PATH
 *   installed: CLIs already on PATH at start ('claude', 'codex')
 *   env: extra server environment (ambient keys, OLLAMA_BASE_URL), or a
 *        function of the fake providers that returns it
 *   welcome: keep the first-run welcome (startServer skips it otherwise)
 *   tools: more host tools to put on PATH ('git', for code tasks' worktrees)
 */
export async function makeWorld({ npm = 'ok', pipx = true, installed = [], env = {}, welcome = false, tools = [] } = {}) {
  const root = await mkdtemp(join(tmpdir(), 'clawboo-rt-'));
  const dirs = { home: join(root, 'home'), bin: join(root, 'bin'), tools: join(root, 'tools'), clawboo: join(root, 'clawboo') };
  for (const d of Object.values(dirs)) await mkdir(d, { recursive: true });
  for (const t of [...TOOLS, ...tools]) await symlink(which(t), join(dirs.tools, t));
  const put = async (name, text) => {
    await writeFile(join(dirs.bin, name), text);
    await chmod(join(dirs.bin, name), 0o755);
  };
  if (npm) await put('npm', npmScript(npm, dirs.bin, root));
  if (pipx) await put('pipx', pipxScript());
  for (const cli of installed) await put(cli, cliScript(cli));

  const providers = await startFakeProviders();
  const serverEnv = {
    HOME: dirs.home,
    PATH: `${dirs.bin}:${dirs.tools}`,
    LANG: 'C.UTF-8',
    CLAWBOO_VAULT: 'file',
    ...providers.env,
    ...(typeof env === 'function' ? env(providers) : env),
  };
  let server;
  try {
    server = await startServer({ home: dirs.clawboo, env: serverEnv, welcome });
  } catch (err) {
    await providers.close();
    await rm(root, { recursive: true, force: true });
    throw err;
  }
  return {
    root,
    ...dirs,
    server,
    url: server.url,
    providers,
    /** Turns a fake-npm switch on or off: 'npm-slow' (wait) or 'npm-no-bin' (install nothing findable). */
    async flag(name, on) {
      if (on) await writeFile(join(root, name), '');
      else await rm(join(root, name), { force: true });
    },
    async close() {
      await server.stop();
      await providers.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
