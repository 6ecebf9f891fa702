// The context block end to end, with the real memory layers (semantic, episodic, working):
// - the MCP prompt `context` and resource `kioku://context` through the official SDK
//   client (legacy era: capabilities, prompts/list, prompts/get with a query,
//   resources/list, resources/read, unknown uri -32602);
// - the same over raw stdio in the 2026-07-28 era, each answer checked against the schema;
// - `kioku context --hook-stdin` as a SessionStart / UserPromptSubmit hook sees what the
//   server stored for the same folder (the project is computed the same way), prints the
//   Claude Code hook JSON, and prints nothing for an irrelevant prompt.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { KIOKU_BIN, RawStdioServer, keepEnv, loadModernSchema, makeSandbox, modernMeta, runCli, stdoutWithoutReader, withTimeout } from './helpers.mjs';

if (!existsSync(KIOKU_BIN)) throw new Error(`e2e prerequisites missing: kioku binary ${KIOKU_BIN} (set KIOKU_BIN)`);
const schema = await loadModernSchema();
const LAYERS = ['working', 'episodic', 'semantic'];

/** Runs `kioku ...args` with `input` on stdin in `cwd`; resolves {code, stdout, stderr}. */
function run(sandbox, args, input, cwd) {
  return runCli(sandbox, args, { env: keepEnv(sandbox.env({ KIOKU_AGENT_ID: 'e2e-hook' })), cwd, input });
}

describe('context block through the SDK client', () => {
  let sandbox;
  let client;
  before(async () => {
    sandbox = makeSandbox({ enabled: LAYERS, profile: 'full' });
    client = new Client({ name: 'kioku-e2e-context', version: '1.0.0' }, { capabilities: {} });
    const transport = new StdioClientTransport({
      command: KIOKU_BIN,
      args: ['--config', sandbox.config, 'serve'],
      env: keepEnv(sandbox.env({ KIOKU_AGENT_ID: 'e2e-agent' })),
      cwd: sandbox.dir,
      stderr: 'pipe',
    });
    await withTimeout(client.connect(transport), 'initialize');
    await withTimeout(client.listTools(), 'tools/list');
    const remembered = await withTimeout(
      client.callTool({ name: 'memory_remember', arguments: { text: 'The project uses pnpm workspaces, never npm', kind: 'decision' } }),
      'memory_remember',
    );
    assert.equal(remembered.isError, false, JSON.stringify(remembered));
    await withTimeout(
      client.callTool({ name: 'memory_suggest', arguments: { text: 'Perhaps the CI cache lives in .pnpm-store', kind: 'fact' } }),
      'memory_suggest',
    );
  });
  after(async () => {
    await client?.close();
    sandbox?.cleanup();
  });

  test('capabilities advertise prompts and resources', () => {
    const caps = client.getServerCapabilities();
    assert.ok(caps.prompts, JSON.stringify(caps));
    assert.ok(caps.resources, JSON.stringify(caps));
  });

  test('prompts/list and prompts/get (with and without a query)', async () => {
    const { prompts } = await withTimeout(client.listPrompts(), 'prompts/list');
    assert.deepEqual(prompts.map((p) => p.name), ['context']);
    assert.deepEqual(prompts[0].arguments.map((a) => a.name), ['query']);
    const got = await withTimeout(client.getPrompt({ name: 'context' }), 'prompts/get');
    const text = got.messages[0].content.text;
    assert.match(text, /\[decision\|confirmed\] The project uses pnpm workspaces, never npm/);
    assert.match(text, /withheld: 1 pending review/);
    const narrowed = await withTimeout(client.getPrompt({ name: 'context', arguments: { query: 'pnpm workspaces' } }), 'prompts/get q');
    assert.match(narrowed.messages[0].content.text, /pnpm workspaces/);
    const none = await withTimeout(client.getPrompt({ name: 'context', arguments: { query: 'weather widget colour' } }), 'prompts/get none');
    assert.match(none.messages[0].content.text, /nothing relevant/);
    await assert.rejects(client.getPrompt({ name: 'nope' }), /-32602|unknown prompt/);
  });

  test('resources/list and resources/read', async () => {
    const { resources } = await withTimeout(client.listResources(), 'resources/list');
    assert.deepEqual(resources.map((r) => r.uri), ['kioku://context']);
    const read = await withTimeout(client.readResource({ uri: 'kioku://context' }), 'resources/read');
    assert.equal(read.contents[0].mimeType, 'text/plain');
    assert.match(read.contents[0].text, /pnpm workspaces/);
    await assert.rejects(client.readResource({ uri: 'kioku://elsewhere' }), /-32602|not found/i);
  });

  test('the SessionStart hook sees the same project; an irrelevant prompt prints nothing', async () => {
    const envelope = (event, extra = {}) =>
      JSON.stringify({ session_id: 's-1', transcript_path: '/nonexistent', cwd: sandbox.dir, hook_event_name: event, ...extra });
    const start = await run(sandbox, ['context', '--hook-stdin'], envelope('SessionStart'), '/');
    assert.equal(start.code, 0, start.stderr);
    const out = JSON.parse(start.stdout);
    assert.equal(out.hookSpecificOutput.hookEventName, 'SessionStart');
    assert.match(out.hookSpecificOutput.additionalContext, /pnpm workspaces, never npm/);
    assert.ok(out.hookSpecificOutput.additionalContext.length <= 10000);

    const relevant = await run(sandbox, ['context', '--hook-stdin'], envelope('UserPromptSubmit', { prompt: 'set up pnpm workspaces for the api' }), '/');
    assert.match(JSON.parse(relevant.stdout).hookSpecificOutput.additionalContext, /pnpm workspaces/);
    const irrelevant = await run(sandbox, ['context', '--hook-stdin'], envelope('UserPromptSubmit', { prompt: 'make the weather widget blue' }), '/');
    assert.deepEqual([irrelevant.code, irrelevant.stdout], [0, '']);

    const plain = await run(sandbox, ['context', '--budget', '500'], '', sandbox.dir);
    assert.match(plain.stdout, /^kioku memory for this project/);

    // A hook whose reader is gone still exits 0 (hooks fail open); `kioku call` says 1.
    const readerGone = (args, input) =>
      withTimeout(
        new Promise((resolve, reject) => {
          const out = stdoutWithoutReader(sandbox.dir);
          const child = spawn(KIOKU_BIN, ['--config', sandbox.config, ...args], {
            env: keepEnv(sandbox.env({ KIOKU_AGENT_ID: 'e2e-hook' })), cwd: '/', stdio: ['pipe', out.fd, 'pipe'] });
          out.close();
          let stderr = '';
          child.stderr.on('data', (d) => (stderr += d));
          child.on('error', reject);
          child.on('close', (code, signal) => resolve({ code, signal, stderr }));
          child.stdin.on('error', (e) => e.code !== 'EPIPE' && reject(e));  // `call` never reads stdin
          child.stdin.end(input);
        }),
        `kioku ${args.join(' ')} with its stdout closed`,
      );
    const hook = await readerGone(['context', '--hook-stdin'], envelope('SessionStart'));
    assert.deepEqual([hook.code, hook.signal], [0, null], hook.stderr);
    const call = await readerGone(['call', 'memory_recall', '{"query":"pnpm"}'], '');
    assert.deepEqual([call.code, call.signal], [1, null], call.stderr);
    assert.match(call.stderr, /the output could not be written/);
  });
});

describe('context block in the 2026-07-28 era over raw stdio', () => {
  let sandbox;
  let server;
  before(() => {
    sandbox = makeSandbox({ enabled: LAYERS, profile: 'full' });
    server = new RawStdioServer(sandbox, { args: ['--config', sandbox.config, 'serve'] });
  });
  after(async () => {
    if (server) {
      await server.endAndWait();
      server.kill();
    }
    sandbox?.cleanup();
  });

  test('discover, prompts and resources conform to the schema', async () => {
    const discover = await server.request('server/discover', { _meta: modernMeta() });
    assert.ok(discover.result.capabilities.prompts && discover.result.capabilities.resources);
    const remembered = await server.request('tools/call', {
      _meta: modernMeta(),
      name: 'memory_remember',
      arguments: { text: 'Releases are tagged vX.Y.Z from main', kind: 'decision' },
    });
    assert.equal(remembered.result?.isError, false, JSON.stringify(remembered));
    const checks = [
      ['prompts/list', {}, 'ListPromptsResultResponse'],
      ['prompts/get', { name: 'context' }, 'GetPromptResultResponse'],
      ['resources/list', {}, 'ListResourcesResultResponse'],
      ['resources/read', { uri: 'kioku://context' }, 'ReadResourceResultResponse'],
    ];
    for (const [method, params, def] of checks) {
      const response = await server.request(method, { _meta: modernMeta(), ...params });
      assert.ok('result' in response, `${method}: ${JSON.stringify(response)}`);
      schema.check(def, response);
      assert.equal(response.result.resultType, 'complete');
    }
    const read = await server.request('resources/read', { _meta: modernMeta(), uri: 'kioku://context' });
    assert.match(read.result.contents[0].text, /Releases are tagged/);
    assert.equal(read.result.cacheScope, 'private');
    const missing = await server.request('resources/read', { _meta: modernMeta(), uri: 'kioku://nope' });
    assert.equal(missing.error.code, -32602);
  });
});
