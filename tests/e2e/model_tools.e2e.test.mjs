// The model-assisted tools end to end: the official MCP TypeScript SDK client drives the
// real `kioku serve` (semantic layer, full profile) whose providers.chat points at a fake
// OpenAI-compatible chat server in this process (helpers.mjs startFakeOpenAi). For
// memory_reflect the fake reads the memory ids kioku put in the prompt and cites them (or,
// scripted, an id that does not exist): a grounded observation is stored as derived with its
// sources and recall labels it derived; an answer citing an unknown id is refused with
// nothing written; forgetting a source makes the observation outdated. For
// memory_consolidate synthesize the fake merges the cluster it is sent: a faithful text is
// written and supersedes its sources, an invented value is refused. The core profile does
// not list the model-assisted tools.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { KIOKU_BIN, callTool as call, connectSdkClient, makeSandbox, startFakeOpenAi, textOf } from './helpers.mjs';

if (!existsSync(KIOKU_BIN)) throw new Error(`e2e prerequisites missing: kioku binary ${KIOKU_BIN} (set KIOKU_BIN)`);

const promptIds = (request) =>
  [...request.messages.map((m) => m.content).join('\n').matchAll(/^\[([0-9A-Z]{26})\]/gm)].map((m) => m[1]);

/** The fake's answers: `mode` 'cite' | 'unknown' for memory_reflect, `merged` for consolidation. */
async function startFakeChat() {
  const script = { mode: 'cite', merged: '' };
  const fake = await startFakeOpenAi({
    chat: (request) => {
      const ids = promptIds(request);
      if (request.response_format?.json_schema?.name === 'merged_memory') return JSON.stringify({ text: script.merged, cited: ids });
      const cited = script.mode === 'cite' ? ids.slice(0, 2) : [ids[0], '01JZZZZZZZZZZZZZZZZZZZZZZZ'];
      return JSON.stringify({ observation: 'Dependencies are managed with pnpm, locked in CI.', cited });
    },
  });
  fake.state.script = script;
  return fake;
}

const connect = async (sandbox) => (await connectSdkClient(sandbox, { agent: 'e2e-reflect' })).client;

/** A fake chat server and a full-profile semantic server using it, holding `texts` as global facts. */
async function startWithChat(texts) {
  const fake = await startFakeChat();
  const sandbox = makeSandbox({
    enabled: ['semantic'],
    profile: 'full',
    extraYaml: `providers:\n  chat:\n    url: ${fake.url}\n    model: fake-chat\n    max_retries: 0\n`,
  });
  const client = await connect(sandbox);
  const ids = [];
  for (const text of texts) {
    const r = await call(client, 'memory_remember', { text, kind: 'fact', scope: 'global' });
    assert.notEqual(r.isError, true, textOf(r));
    ids.push(r.structuredContent.results[0].id);
  }
  return { fake, sandbox, client, ids };
}

describe('memory_reflect through kioku serve', () => {
  let fake;
  let sandbox;
  let client;
  beforeEach(async () => {
    ({ fake, sandbox, client } = await startWithChat([
      'The web app uses pnpm workspaces for its JavaScript dependencies',
      'CI installs JavaScript dependencies with pnpm install --frozen-lockfile',
      'Renovate updates the pnpm lockfile every Monday',
    ]));
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
    fake.state.script.mode = 'unknown';
    const before = await call(client, 'memory_recall', { query: 'pnpm', limit: 20 });
    const r = await call(client, 'memory_reflect', { query: 'pnpm dependencies' });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /rejected \(nothing was written\).*01JZZZZZZZZZZZZZZZZZZZZZZZ/);
    const after = await call(client, 'memory_recall', { query: 'pnpm', limit: 20 });
    assert.equal(after.structuredContent.memories.length, before.structuredContent.memories.length);
  });

  test('forgetting a source makes the observation outdated', async () => {
    const r = await call(client, 'memory_reflect', { query: 'pnpm dependencies' });
    assert.notEqual(r.isError, true, textOf(r));
    const forgot = await call(client, 'memory_forget', { id: r.structuredContent.sources[1] });
    assert.notEqual(forgot.isError, true, textOf(forgot));
    const recall = await call(client, 'memory_recall', { query: 'pnpm JavaScript dependencies' });
    const mine = recall.structuredContent.memories.find((m) => m.id === r.structuredContent.id);
    assert.equal(mine?.trust, 'outdated', textOf(recall));
  });
});

describe('memory_consolidate synthesize through kioku serve', () => {
  let fake;
  let sandbox;
  let client;
  let ids;
  beforeEach(async () => {
    ({ fake, sandbox, client, ids } = await startWithChat([
      'Integration tests run against a local Postgres 15 container',
      'The integration tests run against a Postgres 15 container on the local machine',
    ]));
  });
  afterEach(async () => {
    await client?.close();
    sandbox?.cleanup();
    await fake?.close();
  });

  test('a faithful merged text is written as derived and supersedes its sources', async () => {
    fake.state.script.merged = 'Integration tests always run against a Postgres 15 container on the local machine.';
    const r = await call(client, 'memory_consolidate', { synthesize: true, apply: true });
    assert.notEqual(r.isError, true, textOf(r));
    const merged = r.structuredContent.clusters[0].merged;
    assert.equal(merged.action, 'written', textOf(r));
    assert.deepEqual([...merged.sources].sort(), [...ids].sort());
    assert.equal(r.structuredContent.superseded, 2);
    const recall = await call(client, 'memory_recall', { query: 'postgres integration tests' });
    assert.deepEqual(recall.structuredContent.memories.map((m) => [m.id, m.trust]), [[merged.id, 'derived']]);
  });

  test('a merged text naming a value no source says is refused and nothing changes', async () => {
    fake.state.script.merged = 'Integration tests run against a local Postgres 15 container on port 5433.';
    const r = await call(client, 'memory_consolidate', { synthesize: true, apply: true });
    assert.notEqual(r.isError, true, textOf(r));
    assert.equal(r.structuredContent.clusters[0].merged.action, 'rejected');
    assert.match(textOf(r), /names "5433", which no source says/);
    const recall = await call(client, 'memory_recall', { query: 'postgres integration tests' });
    assert.deepEqual(recall.structuredContent.memories.map((m) => m.id).sort(), [...ids].sort());
  });
});

test('the core profile does not list the model-assisted tools', async () => {
  const sandbox = makeSandbox({ enabled: ['semantic'] });
  const client = await connect(sandbox);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('memory_recall'));
    assert.ok(!['memory_reflect', 'entity_extract_deep', 'memory_consolidate'].some((n) => names.includes(n)), names.join(', '));
  } finally {
    await client.close();
    sandbox.cleanup();
  }
});
