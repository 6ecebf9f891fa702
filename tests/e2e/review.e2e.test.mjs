// The semantic review queue end to end through the official SDK client: a subject-less
// rival is contested (and said so in the answer), memory_review lists it with counts,
// promote supersedes the rival, reject reinstates the survivor, undo restores the contest;
// memory_used is idempotent; `kioku review` prints the same counts from the CLI.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { KIOKU_BIN, callTool, connectSdkClient, keepEnv, makeSandbox, runCli, withTimeout } from './helpers.mjs';

if (!existsSync(KIOKU_BIN)) throw new Error(`e2e prerequisites missing: kioku binary ${KIOKU_BIN} (set KIOKU_BIN)`);

const cli = (sandbox, args) => runCli(sandbox, args, { env: keepEnv(sandbox.env()) });

describe('memory_review through the SDK client', () => {
  let sandbox;
  let client;
  const call = async (name, args) => {
    const r = await withTimeout(client.callTool({ name, arguments: args }), name);
    return r;
  };
  before(async () => {
    sandbox = makeSandbox({ enabled: ['semantic'], profile: 'full' });
    client = new Client({ name: 'kioku-e2e-review', version: '1.0.0' }, { capabilities: {} });
    const transport = new StdioClientTransport({
      command: KIOKU_BIN,
      args: ['--config', sandbox.config, 'serve'],
      env: keepEnv(sandbox.env({ KIOKU_AGENT_ID: 'e2e-agent' })),
      cwd: sandbox.dir,
      stderr: 'pipe',
    });
    await withTimeout(client.connect(transport), 'initialize');
  });
  after(async () => {
    await client?.close();
    sandbox?.cleanup();
  });

  test('tools are listed with their schemas', async () => {
    const { tools } = await withTimeout(client.listTools(), 'tools/list');
    const names = tools.map((t) => t.name);
    for (const n of ['memory_review', 'memory_used', 'memory_maintain', 'memory_consolidate']) assert.ok(names.includes(n), n);
  });

  test('a rival without a subject is contested; promote, reject and undo round-trip', async () => {
    const bun = await call('memory_remember', {
      text: 'We switched from pnpm to bun', kind: 'decision', subject: 'package-manager', value: 'bun',
    });
    assert.equal(bun.isError, false, JSON.stringify(bun));
    const bunId = bun.structuredContent.results[0].id;
    const yarn = await call('memory_remember', { text: 'Actually we use yarn now for everything.', kind: 'decision' });
    assert.equal(yarn.isError, false, JSON.stringify(yarn));
    const yarnId = yarn.structuredContent.results[0].id;
    assert.equal(yarn.structuredContent.results[0].status, 'contested');
    assert.match(yarn.content[0].text, /this may replace/);

    const listed = await call('memory_review', {});
    assert.equal(listed.isError, false, JSON.stringify(listed));
    assert.deepEqual(listed.structuredContent.counts, { pending: 0, contested: 2, contradicted: 0, stale: 0 });
    assert.match(listed.content[0].text, /review: 0 pending · 2 contested/);

    const rejected = await call('memory_review', { action: 'reject', id: yarnId.slice(0, 10) });
    assert.equal(rejected.structuredContent.result.status, 'superseded');
    assert.deepEqual(rejected.structuredContent.result.reinstated, [bunId]);
    assert.equal(rejected.structuredContent.counts.contested, 0);

    const undone = await call('memory_review', { action: 'undo', id: yarnId });
    assert.equal(undone.structuredContent.result.status, 'contested');
    assert.equal(undone.structuredContent.counts.contested, 2);

    const promoted = await call('memory_review', { action: 'promote', id: yarnId });
    assert.deepEqual(promoted.structuredContent.result.superseded, [bunId]);
    const got = await call('memory_get', { id: bunId });
    assert.equal(got.structuredContent.memory.status, 'superseded');

    const bad = await call('memory_review', { action: 'reject', id: yarnId });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /only pending or contested/);

    const cmd = await cli(sandbox, ['review']);
    assert.equal(cmd.code, 0, cmd.stderr);
    assert.match(cmd.stdout, /review: 0 pending · 0 contested · 0 contradicted · 0 stale/);
  });

  test('memory_used is idempotent per session', async () => {
    const m = await call('memory_remember', { text: 'The deploy script lives in tools/deploy.sh', kind: 'fact' });
    const id = m.structuredContent.results[0].id;
    const first = await call('memory_used', { ids: [id], session_id: 'e2e-s1' });
    assert.equal(first.structuredContent.marked, 1);
    const again = await call('memory_used', { ids: [id], session_id: 'e2e-s1' });
    assert.deepEqual([again.structuredContent.marked, again.structuredContent.already], [0, 1]);
    const maint = await call('memory_maintain', {});
    assert.equal(maint.isError, false, JSON.stringify(maint));
    assert.equal(typeof maint.structuredContent.decayed, 'number');
  });
});

describe('a database made by kioku 0.1.0 migrates to the review tables', () => {
  test('memory_review and memory_maintain work on the migrated file', async () => {
    const { copyFileSync, mkdirSync } = await import('node:fs');
    const path = await import('node:path');
    const { fileURLToPath } = await import('node:url');
    const here = path.dirname(fileURLToPath(import.meta.url));
    const sandbox = makeSandbox({ enabled: ['semantic'], profile: 'full' });
    mkdirSync(sandbox.home, { recursive: true });
    copyFileSync(path.join(here, '..', 'fixtures', 'db', 'release-0.1.0.db'), path.join(sandbox.home, 'kioku.db'));
    const client = new Client({ name: 'kioku-e2e-review-migrate', version: '1.0.0' }, { capabilities: {} });
    try {
      await withTimeout(client.connect(new StdioClientTransport({
        command: KIOKU_BIN,
        args: ['--config', sandbox.config, 'serve'],
        env: keepEnv(sandbox.env({ KIOKU_AGENT_ID: 'e2e-agent' })),
        cwd: sandbox.dir,
        stderr: 'pipe',
      })), 'initialize');
      const review = await withTimeout(client.callTool({ name: 'memory_review', arguments: {} }), 'memory_review');
      assert.equal(review.isError, false, JSON.stringify(review));
      assert.deepEqual(Object.keys(review.structuredContent.counts).sort(), ['contested', 'contradicted', 'pending', 'stale']);
      const maint = await withTimeout(client.callTool({ name: 'memory_maintain', arguments: {} }), 'memory_maintain');
      assert.equal(maint.isError, false, JSON.stringify(maint));
    } finally {
      await client.close();
      sandbox.cleanup();
    }
  });
});

// The default (core) tool profile has no memory_review: an agent settles a contest with
// memory_edit (confirm the right side) or memory_forget (drop the wrong one), and neither
// leaves a rival contested behind.
describe('settling a contest in the core tool profile', () => {
  let sandbox;
  let client;
  let tools;
  const call = (name, args) => callTool(client, name, args);
  const remember = async (text) => {
    const r = await call('memory_remember', { text, kind: 'fact' });
    assert.equal(r.isError, false, JSON.stringify(r));
    return r;
  };
  before(async () => {
    sandbox = makeSandbox({ enabled: ['semantic'] });
    ({ client, tools } = await connectSdkClient(sandbox, { name: 'kioku-e2e-core-review' }));
  });
  after(async () => {
    await client?.close();
    sandbox?.cleanup();
  });

  test('memory_edit status "active" confirms one side and supersedes the other', async () => {
    assert.ok(!tools.some((t) => t.name === 'memory_review'), 'memory_review is not in the core profile');
    const jestId = (await remember('Tests run with jest')).structuredContent.results[0].id;
    const vitest = await remember('We moved the test suite to vitest');
    const vitestId = vitest.structuredContent.results[0].id;
    assert.equal(vitest.structuredContent.results[0].status, 'contested');
    assert.match(vitest.content[0].text, /confirm one with memory_edit status "active"/);

    const edited = await call('memory_edit', { id: vitestId, status: 'active' });
    assert.equal(edited.isError, false, JSON.stringify(edited));
    assert.deepEqual(edited.structuredContent.replaced, [jestId]);
    const jest = await call('memory_recall', { query: 'jest', status: ['active', 'contested', 'superseded'] });
    assert.equal(jest.structuredContent.memories.find((m) => m.id === jestId)?.status, 'superseded');
    const contested = await call('memory_recall', { query: 'test suite', status: ['contested'] });
    assert.equal(contested.structuredContent.memories.length, 0, JSON.stringify(contested.structuredContent));
  });

  test('memory_forget of the wrong side returns the other to active at once', async () => {
    const fridayId = (await remember('Deploys go out on Fridays')).structuredContent.results[0].id;
    const monday = await remember('Deploys go out on Mondays');
    const mondayId = monday.structuredContent.results[0].id;
    assert.equal(monday.structuredContent.results[0].status, 'contested');
    const forgot = await call('memory_forget', { id: mondayId });
    assert.equal(forgot.isError, false, JSON.stringify(forgot));
    assert.deepEqual(forgot.structuredContent.reinstated, [fridayId]);
    const recalled = await call('memory_recall', { query: 'deploys Fridays' });
    assert.equal(recalled.structuredContent.memories.find((m) => m.id === fridayId)?.status, 'active');
    assert.doesNotMatch(recalled.content[0].text, /contested memor/);
  });
});
