// A scripted OpenAI Chat Completions endpoint for browser tests, the node
// twin of backend/fakes/fakeprovider's OpenAI dialect: answers come from
// queues chosen by a substring of the raw request body (a member's system
// prompt, say), like fakeprovider.PushWhen, so conversations running at
// once each take their own script. It streams exactly what openaiEvents
// streams (the chunks the native runtime's openai-go client is proven
// against): a role chunk, one chunk per text delta, per tool call a chunk
// opening it (index, id, type "function", name, empty arguments) and one
// with its arguments, a finish_reason chunk, a usage chunk (choices: [])
// when stream_options.include_usage, then data: [DONE].
//
// Invariants:
//   - Every request is recorded (raw body) before it is answered.
//   - Routes are tried in the order first scripted; an unscripted request
//     is answered 500 with the OpenAI error body naming what it was, so a
//     test sees it (the run fails with those words).

/** A reply streamed as the given text deltas. */
export const text = (...deltas) => ({ text: deltas, tools: [] });

/** A reply of tool calls: each { id, name, args } (args a JSON string or a value to encode). */
export const tools = (...calls) => ({ text: [], tools: calls });

const chunk = (model, choices, extra = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1700000000, model, choices, ...extra })}\n\n`;

/** The SSE events of one scripted response, as fakeprovider's openaiEvents writes them. */
export function openaiEvents(model, r, includeUsage) {
  const calls = r.tools ?? [];
  const stop = r.stop ?? (calls.length ? 'tool_calls' : 'stop');
  const delta = (d, finish = null) => chunk(model, [{ index: 0, delta: d, finish_reason: finish }]);
  const ev = [delta({ role: 'assistant', content: '' })];
  for (const t of r.text ?? []) ev.push(delta({ content: t }));
  calls.forEach((c, index) => {
    const args = typeof c.args === 'string' ? c.args : JSON.stringify(c.args ?? {});
    ev.push(delta({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    if (args) ev.push(delta({ tool_calls: [{ index, function: { arguments: args } }] }));
  });
  ev.push(delta({}, stop));
  if (includeUsage) {
    const { input = 10, output = 5, cacheRead = 0 } = r.usage ?? {};
    ev.push(
      chunk(model, [], {
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output, prompt_tokens_details: { cached_tokens: cacheRead } },
      }),
    );
  }
  ev.push('data: [DONE]\n\n');
  return ev;
}

/** The scripted chat endpoint. `handle` serves one POST …/chat/completions whose body was read. */
export function createFakeChat() {
  const routes = []; // { match, queue }
  const requests = [];

  function take(body) {
    for (const rt of routes) {
      if (rt.queue.length && body.includes(rt.match)) return rt.queue.shift();
    }
    return null;
  }

  return {
    /** Every request seen: { path, key, body (raw text), json (parsed, or null) }. */
    requests,
    /** Queues responses for requests whose raw body contains `match`. */
    pushWhen(match, ...responses) {
      const rt = routes.find((r) => r.match === match);
      if (rt) rt.queue.push(...responses);
      else routes.push({ match, queue: [...responses] });
    },
    /** Scripted responses not yet asked for, by match. */
    pending() {
      return Object.fromEntries(routes.filter((r) => r.queue.length).map((r) => [r.match, r.queue.length]));
    },
    /** The requests whose raw body contains every one of `parts`. */
    requestsWith(...parts) {
      return requests.filter((r) => parts.every((p) => r.body.includes(p)));
    },
    handle(req, res, path, key, body) {
      let json = null;
      try {
        json = JSON.parse(body);
      } catch {
        /* recorded as sent */
      }
      requests.push({ path, key, body, json });
      const fail = (status, message, type = 'invalid_request_error') => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
      };
      const r = take(body);
      if (!r) {
        const system = json?.messages?.find((m) => m.role === 'system')?.content;
        const who = typeof system === 'string' ? system.slice(0, 60) : '(no system prompt)';
        return fail(500, `fakechat: nothing scripted for this request (system prompt: ${JSON.stringify(who)})`, 'server_error');
      }
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
        for (const ev of openaiEvents(json?.model ?? '', r, json?.stream_options?.include_usage === true)) res.write(ev);
        res.end();
      };
      if (!r.delay) return send();
      // A slow model: hold the answer back, giving up if the client goes away.
      const timer = setTimeout(send, r.delay);
      res.on('close', () => clearTimeout(timer));
    },
  };
}
