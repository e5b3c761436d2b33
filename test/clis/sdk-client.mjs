// The official TypeScript MCP SDK as a client of Clawboo's servers: lists
// the tools of one server and calls one, printing one JSON line with what it
// saw. Driven by the Go test TestTypeScriptSDKClient (test/e2e/sdk_test.go).
//
//   node sdk-client.mjs <url> <token> <tool> <json-args>

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token, tool, args] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: 'sdk-test', version: '1.0.0' });
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
  console.log(JSON.stringify({ server: client.getServerVersion(), tools: tools.map((t) => t.name), result }));
  await client.close();
} catch (err) {
  console.log(JSON.stringify({ error: String(err?.message ?? err) }));
  process.exitCode = 1;
}
