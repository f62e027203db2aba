// Drives a running gsmcp with the official TypeScript MCP SDK v2
// (@modelcontextprotocol/client) in the stateless era (MCP 2026-07-28), once
// pinned to that revision and once in its auto mode. Each run has two clients
// with a session handle each: A runs code, defines a TestCase subclass and
// two tests and runs them (with progress), B does not see A's uncommitted
// class, A commits, B sees it after abort; A's next change is discarded by
// abort; both handles are closed. A third client answers a tool that asks
// the user twice (multi round-trip requests) through its elicitation
// handler. The server must keep a repository file.
// Usage: node ts_stateless.mjs URL (Node >= 22 from install.sh). Exits
// non-zero on any mismatch.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '.deps', 'js', 'package.json'));
const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');

function fail(message) {
  console.error(`ts_stateless: FAIL: ${message}`);
  process.exit(1);
}

const url = process.argv[2];
if (!url) {
  console.error('usage: node ts_stateless.mjs URL');
  process.exit(2);
}

const textOf = (r) => (r.content ?? []).map((b) => b.text ?? '').join('');

async function connect(mode) {
  const client = new Client({ name: 'gsmcp-ts-stateless', version: '1' },
    { capabilities: {}, versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function tool(client, name, args, options) {
  const r = await client.callTool({ name, arguments: args }, options);
  if (r.isError) fail(`${name} ${JSON.stringify(args)}: ${textOf(r)}`);
  return r;
}

async function flow(mode, cls) {
  const a = await connect(mode);
  const b = await connect(mode);
  const names = (await a.listTools()).tools.map((t) => t.name);
  for (const needed of ['open_session', 'close_session', 'execute_code', 'run_test_class', 'commit', 'abort']) {
    if (!names.includes(needed)) fail(`tools/list lacks ${needed}`);
  }
  const ha = (await tool(a, 'open_session', {})).structuredContent.session;
  const hb = (await tool(b, 'open_session', {})).structuredContent.session;
  if (ha === hb) fail('two clients got the same handle');
  if (textOf(await tool(a, 'execute_code', { code: '3 + 4', session: ha })) !== '7') fail('3 + 4');
  await tool(a, 'compile_class_definition', { className: cls, superclassName: 'TestCase', session: ha });
  for (const source of ['testSum\n\tself assert: 3 + 4 = 7', "testConcat\n\tself assert: ('ab' , 'c') = 'abc'"]) {
    await tool(a, 'compile_method', { className: cls, source, category: 'tests', session: ha });
  }
  const progress = [];
  const run = await tool(a, 'run_test_class', { className: cls, session: ha },
    { onprogress: (p) => progress.push(p.progress) });
  const summary = run.structuredContent?.summary ?? {};
  if (summary.passed !== 2 || summary.run !== 2) fail(`run_test_class: ${JSON.stringify(summary)}`);
  if (progress.length < 2) fail(`run_test_class progress: ${JSON.stringify(progress)}`);
  const seen = async (client, h) => textOf(await tool(client, 'execute_code', { code: `UserGlobals includesKey: #${cls}`, session: h }));
  if (!(await seen(b, hb)).startsWith('false')) fail("B sees A's uncommitted class");
  await tool(a, 'commit', { session: ha });
  await tool(b, 'abort', { session: hb });
  if (!(await seen(b, hb)).startsWith('true')) fail("B does not see A's committed class after abort");
  await tool(a, 'execute_code', { code: `UserGlobals at: #${cls}Scratch put: 1`, session: ha });
  await tool(a, 'abort', { session: ha });
  const left = textOf(await tool(a, 'execute_code', { code: `UserGlobals includesKey: #${cls}Scratch`, session: ha }));
  if (!left.startsWith('false')) fail(`abort kept the change: ${left}`);
  for (const [client, h] of [[a, ha], [b, hb]]) {
    const closed = await tool(client, 'close_session', { session: h });
    if (closed.structuredContent?.closed !== true) fail(`close_session: ${textOf(closed)}`);
    await client.close();
  }
  console.log(`ts_stateless (${typeof mode === 'string' ? mode : mode.pin}): ok (${names.length} tools; two handles kept apart; `
    + `compiled and ran 2 tests with ${progress.length} progress notifications; commit and abort)`);
}

// A tool that asks the user twice (multi round-trip requests): the SDK
// answers each InputRequiredResult through the client's elicitation handler
// and sends the request again with the answers and the sealed state.
async function rounds(mode) {
  const client = new Client({ name: 'gsmcp-ts-stateless', version: '1' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode } });
  const asked = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    const field = request.params.message.includes('name') ? 'name' : 'color';
    return { action: 'accept', content: { [field]: field === 'name' ? 'Lin' : 'red' } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const r = await tool(client, 'test_input_required_result_multi_round', {});
  if (textOf(r) !== "Lin's favourite colour is red." || asked.length !== 2) {
    fail(`multi round-trip: ${textOf(r)} after ${JSON.stringify(asked)}`);
  }
  await client.close();
  console.log(`ts_stateless (${typeof mode === 'string' ? mode : mode.pin}): a request answered in ${asked.length + 1} rounds`);
}

await flow({ pin: '2026-07-28' }, 'TsStatelessPinned');
await rounds({ pin: '2026-07-28' });
await flow('auto', 'TsStatelessAuto');
await rounds('auto');
