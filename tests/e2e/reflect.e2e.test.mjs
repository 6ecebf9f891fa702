// memory_reflect end to end: the official MCP TypeScript SDK client drives the real
// `kioku serve` (semantic layer, full profile) whose providers.chat points at a fake
// OpenAI-compatible chat server in this process (node:http on 127.0.0.1:0). The fake reads
// the memory ids kioku put in the prompt and cites them (or, scripted, an id that does not
// exist). Checks: a grounded observation is stored as derived with its sources and recall
// labels it derived; an answer citing an unknown id is refused with nothing written; the
// core profile does not list the model-assisted tools.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { KIOKU_BIN, keepEnv, makeSandbox, withTimeout } from './helpers.mjs';

if (!existsSync(KIOKU_BIN)) throw new Error(`e2e prerequisites missing: kioku binary ${KIOKU_BIN} (set KIOKU_BIN)`);

/** A fake chat-completions endpoint; `mode` is 'cite' (cite the first two prompt ids) or 'unknown'. */
async function startFakeChat() {
  const state = { mode: 'cite', requests: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      state.requests += 1;
      const request = JSON.parse(body);
      const prompt = request.messages.map((m) => m.content).join('\n');
      const ids = [...prompt.matchAll(/^\[([0-9A-Z]{26})\]/gm)].map((m) => m[1]);
      const cited = state.mode === 'cite' ? ids.slice(0, 2) : [ids[0], '01JZZZZZZZZZZZZZZZZZZZZZZZ'];
      const content = JSON.stringify({ observation: 'Dependencies are managed with pnpm, locked in CI.', cited });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content } }] }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { state, url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

async function connect(sandbox) {
  const client = new Client({ name: 'kioku-e2e-reflect', version: '1.0.0' }, { capabilities: {} });
  const transport = new StdioClientTransport({
    command: KIOKU_BIN,
    args: ['--config', sandbox.config, 'serve'],
    env: keepEnv(sandbox.env({ KIOKU_AGENT_ID: 'e2e-reflect' })),
    cwd: sandbox.dir,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  try {
    await withTimeout(client.connect(transport), 'initialize over stdio');
  } catch (e) {
    throw new Error(`${e.message}; stderr:\n${stderr}`);
  }
  return client;
}

const call = (client, name, args = {}) => withTimeout(client.callTool({ name, arguments: args }), `tools/call ${name}`);
const textOf = (r) => (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

describe('memory_reflect through kioku serve', () => {
  let fake;
  let sandbox;
  let client;
  beforeEach(async () => {
    fake = await startFakeChat();
    sandbox = makeSandbox({
      enabled: ['semantic'],
      profile: 'full',
      extraYaml: `providers:\n  chat:\n    url: ${fake.url}\n    model: fake-chat\n    max_retries: 0\n`,
    });
    client = await connect(sandbox);
    await withTimeout(client.listTools(), 'tools/list');
    for (const text of [
      'The web app uses pnpm workspaces for its JavaScript dependencies',
      'CI installs JavaScript dependencies with pnpm install --frozen-lockfile',
      'Renovate updates the pnpm lockfile every Monday',
    ]) {
      const r = await call(client, 'memory_remember', { text, kind: 'fact', scope: 'global' });
      assert.notEqual(r.isError, true, textOf(r));
    }
  });
  afterEach(async () => {
    await client?.close();
    sandbox?.cleanup();
    await fake?.close();
  });

  test('a grounded observation is stored as derived with its sources', async () => {
    const r = await call(client, 'memory_reflect', { query: 'pnpm dependencies' });
    assert.notEqual(r.isError, true, textOf(r));
    const s = r.structuredContent;
    assert.equal(s.action, 'remembered');
    assert.equal(s.derived, true);
    assert.equal(s.sources.length, 2);
    assert.equal(fake.state.requests, 1);
    const got = await call(client, 'memory_get', { id: s.id });
    assert.match(textOf(got), /observation/);
    const recall = await call(client, 'memory_recall', { query: 'pnpm JavaScript dependencies' });
    const mine = recall.structuredContent.memories.find((m) => m.id === s.id);
    assert.ok(mine, `the observation is recalled: ${textOf(recall)}`);
    assert.equal(mine.trust, 'derived');
    assert.match(textOf(recall), /\[observation\|derived\]/);
  });

  test('an answer citing an unknown id is refused and nothing is written', async () => {
    fake.state.mode = 'unknown';
    const before = await call(client, 'memory_recall', { query: 'pnpm', limit: 20 });
    const r = await call(client, 'memory_reflect', { query: 'pnpm dependencies' });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /rejected \(nothing was written\).*01JZZZZZZZZZZZZZZZZZZZZZZZ/);
    const after = await call(client, 'memory_recall', { query: 'pnpm', limit: 20 });
    assert.equal(after.structuredContent.memories.length, before.structuredContent.memories.length);
  });
});

test('the core profile does not list the model-assisted tools', async () => {
  const sandbox = makeSandbox({ enabled: ['semantic'] });
  const client = await connect(sandbox);
  try {
    const { tools } = await withTimeout(client.listTools(), 'tools/list');
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('memory_recall'));
    assert.ok(!names.includes('memory_reflect') && !names.includes('entity_extract_deep'), names.join(', '));
  } finally {
    await client.close();
    sandbox.cleanup();
  }
});
