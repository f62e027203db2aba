// Drives a running gsmcp with the official TypeScript MCP SDK (1.32):
// initialize, tools/list, tools/call execute_code `3 + 4` (with a progress
// handler), a compile + test run with progress (compile_class_definition,
// compile_method, run_test_class), then DELETE. When the server serves the Conformance toolset it
// also answers a sampling request of test_sampling, counts the log messages of
// test_tool_with_logging and reads a prompt and a resource.
// Usage: node ts_client.mjs URL (Node >= 22 from install.sh). Exits non-zero
// on any mismatch. With GSMCP_TOKEN set it sends `Authorization: Bearer
// $GSMCP_TOKEN`; an https URL's certificate is trusted through Node's
// NODE_EXTRA_CA_CERTS.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '.deps', 'js', 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const {
  CallToolResultSchema, CreateMessageRequestSchema, LoggingMessageNotificationSchema,
} = require('@modelcontextprotocol/sdk/types.js');

function fail(message) {
  console.error(`ts_client: FAIL: ${message}`);
  process.exit(1);
}

const url = process.argv[2];
if (!url) {
  console.error('usage: node ts_client.mjs URL');
  process.exit(2);
}

const client = new Client({ name: 'gsmcp-ts-client', version: '1' }, { capabilities: { sampling: {} } });
let sampled = 0;
client.setRequestHandler(CreateMessageRequestSchema, async () => {
  sampled += 1;
  return { role: 'assistant', model: 'ts-client', content: { type: 'text', text: 'answer from the TypeScript client' } };
});
let logs = 0;
client.setNotificationHandler(LoggingMessageNotificationSchema, () => { logs += 1; });
const token = process.env.GSMCP_TOKEN;
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
});
try {
  await client.connect(transport);
  if (!transport.sessionId) fail('no session id after initialize');
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  if (!names.includes('execute_code')) fail(`tools/list lacks execute_code: ${names}`);
  let progress = 0;
  const result = await client.request(
    { method: 'tools/call', params: { name: 'execute_code', arguments: { code: '3 + 4' } } },
    CallToolResultSchema,
    { onprogress: () => { progress += 1; } },
  );
  const text = (result.content ?? []).map((c) => c.text ?? '').join('');
  if (result.isError) fail(`execute_code failed: ${text}`);
  if (!text.includes('7') && !JSON.stringify(result.structuredContent ?? {}).includes('7')) {
    fail(`execute_code 3 + 4 did not answer 7: ${text}`);
  }
  let extra = '';
  if (names.includes('run_test_class')) {
    // A compile + test run: a TestCase subclass, two tests, run with progress.
    const steps = [
      ['compile_class_definition', { className: 'TsClientProbe', superclassName: 'TestCase' }],
      ['compile_method', { className: 'TsClientProbe', source: 'testSum\n\tself assert: 3 + 4 = 7', category: 'tests' }],
      ['compile_method', { className: 'TsClientProbe', source: "testConcat\n\tself assert: ('ab' , 'c') = 'abc'", category: 'tests' }],
    ];
    for (const [name, args] of steps) {
      const r = await client.callTool({ name, arguments: args });
      if (r.isError) fail(`${name}: ${JSON.stringify(r.content)}`);
    }
    const seen = [];
    const run = await client.request(
      { method: 'tools/call', params: { name: 'run_test_class', arguments: { className: 'TsClientProbe' } } },
      CallToolResultSchema,
      { onprogress: (p) => { seen.push(p.progress); } },
    );
    const summary = run.structuredContent?.summary ?? {};
    if (run.isError || summary.passed !== 2 || summary.run !== 2) {
      fail(`run_test_class: ${JSON.stringify(run)}`);
    }
    if (seen.length < 2 || seen.some((v, i) => i > 0 && v < seen[i - 1])) {
      fail(`run_test_class progress: ${JSON.stringify(seen)}`);
    }
    extra += `; compiled and ran 2 tests with ${seen.length} progress notifications`;
  }
  if (names.includes('test_sampling')) {
    const s = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hello' } });
    const said = (s.content ?? []).map((c) => c.text ?? '').join('');
    if (sampled !== 1 || !said.includes('answer from the TypeScript client')) {
      fail(`test_sampling: ${sampled} sampling requests, answer ${said}`);
    }
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    if (logs < 3) fail(`test_tool_with_logging: ${logs} log messages`);
    const p = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a1', arg2: 'b2' } });
    if (!JSON.stringify(p.messages).includes('a1')) fail(`prompt: ${JSON.stringify(p)}`);
    const r = await client.readResource({ uri: 'test://static-text' });
    if (!r.contents?.[0]?.text) fail(`resource: ${JSON.stringify(r)}`);
    extra += `; sampling, ${logs} logs, prompt and resource ok`;
  }
  await transport.terminateSession();
  await client.close();
  console.log(`ts_client: ok (${names.length} tools; 3 + 4 -> ${text.trim().slice(0, 80)}; ${progress} progress notifications${extra})`);
} catch (e) {
  fail(e?.stack ?? String(e));
}
