// Foreign imports through the real CLI: `kioku import --from claude-md CLAUDE.md` files
// every bullet as a pending memory of the folder's project, `kioku call memory_list`
// shows them, a second import adds nothing and says so; memory.jsonl lands in the entity
// graph; a secret refuses the file naming the line, and nothing is stored.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

import { KIOKU_BIN, makeSandbox, runCli } from './helpers.mjs';

if (!existsSync(KIOKU_BIN)) throw new Error(`e2e prerequisites missing: kioku binary ${KIOKU_BIN} (set KIOKU_BIN)`);

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/import');

const cli = (sandbox, args) => runCli(sandbox, args);

describe('kioku import --from (foreign formats)', () => {
  let sandbox;
  before(() => {
    sandbox = makeSandbox({ enabled: ['semantic'], profile: 'full' });
  });
  after(() => sandbox?.cleanup());

  test('CLAUDE.md bullets become pending memories listed by memory_list; a second import adds nothing', async () => {
    const first = await cli(sandbox, ['import', '--from', 'claude-md', path.join(FIXTURES, 'CLAUDE.md')]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /\(claude-md\): memories 6 new, 1 already there;/);
    assert.match(first.stdout, /line 29: already known as/);

    const list = await cli(sandbox, ['call', 'memory_list', JSON.stringify({ status: ['pending'], limit: 20 })]);
    assert.equal(list.code, 0, list.stderr);
    // `kioku call` prints the text, then structuredContent as indented JSON.
    const listed = JSON.parse(list.stdout.slice(list.stdout.indexOf('\n{\n') + 1));
    const texts = listed.memories.map((m) => m.text);
    assert.equal(texts.length, 6, list.stdout);
    assert.ok(texts.includes('Use 2-space indentation in TypeScript files.'), list.stdout);
    assert.ok(texts.includes('The staging database resets every Sunday night.'), list.stdout);
    assert.ok(!texts.some((t) => t.includes('memory_recall') || t.includes('fence')), list.stdout);

    const again = await cli(sandbox, ['import', '--from', 'claude-md', path.join(FIXTURES, 'CLAUDE.md')]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /memories 0 new, 7 already there;/);

    // `kioku review` confirms them from another folder too: --project, or KIOKU_PROJECT_ROOT.
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'kioku-e2e-elsewhere-'));
    try {
      const here = await runCli(sandbox, ['review'], { cwd: elsewhere });
      assert.match(here.stdout, /review: 0 pending/, here.stdout + here.stderr);
      const named = await runCli(sandbox, ['review', '--project', sandbox.dir], { cwd: elsewhere });
      assert.equal(named.code, 0, named.stderr);
      assert.match(named.stdout, /review: 6 pending/);
      const rooted = await runCli(sandbox, ['review'], { cwd: elsewhere, env: sandbox.env({ KIOKU_PROJECT_ROOT: sandbox.dir }) });
      assert.match(rooted.stdout, /review: 6 pending/, rooted.stdout + rooted.stderr);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    assert.match(again.stdout, /nothing new/);
  });

  test('memory.jsonl fills the entity graph (auto-detected)', async () => {
    const r = await cli(sandbox, ['import', path.join(FIXTURES, 'memory.jsonl')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\(mcp-memory\): entities 3 new, 0 already there; memories 3 new, 0 already there; relations 2 new/);
    const graph = await cli(sandbox, ['call', 'entity_graph', JSON.stringify({ entity: 'John_Smith' })]);
    assert.equal(graph.code, 0, graph.stderr);
    assert.match(graph.stdout, /works_at/);
  });

  test('--global files the bullets as global memories', async () => {
    const file = path.join(sandbox.dir, 'GLOBAL.md');
    writeFileSync(file, '# Everywhere\n- Answer in British English.\n');
    const r = await cli(sandbox, ['import', '--from', 'claude-md', '--global', file]);
    assert.equal(r.code, 0, r.stderr);
    const list = await cli(sandbox, ['call', 'memory_list', JSON.stringify({ status: ['pending'], scope: 'global' })]);
    assert.match(list.stdout, /Answer in British English/);
  });

  test('usage errors exit 2 and open nothing: an unknown format, a bad review bucket, a bad listen address', async () => {
    const backups = () => (existsSync(path.join(sandbox.home, 'backups')) ? readdirSync(path.join(sandbox.home, 'backups')).length : 0);
    const before = backups();
    const format = await cli(sandbox, ['import', '--from', 'bogus', path.join(FIXTURES, 'CLAUDE.md')]);
    assert.equal(format.code, 2, format.stderr);
    assert.match(format.stderr, /unknown import format 'bogus'; send one of auto, kioku, claude-md/);
    const bucket = await cli(sandbox, ['review', '--bucket', 'nope']);
    assert.equal(bucket.code, 2, bucket.stderr);
    assert.match(bucket.stderr, /--bucket is one of pending, contested, contradicted, stale \(got 'nope'\)/);
    // Checked before the database is opened: no start-up snapshot of an existing store.
    const listen = await cli(sandbox, ['serve', '--http', 'x']);
    assert.equal(listen.code, 2, listen.stderr);
    assert.match(listen.stderr, /kioku serve: http listen address 'x' is not ADDR:PORT/);
    assert.equal(backups(), before);
  });

  test('a secret refuses the file, naming line and rule, and stores nothing', async () => {
    const secret = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    const file = path.join(sandbox.dir, 'AGENTS.md');
    writeFileSync(file, `# Deploy\n- Deploys use the token ${secret}\n- Deploy from main only.\n`);
    const r = await cli(sandbox, ['import', '--from', 'agents-md', file]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /line 2: looks like a secret \(github-token\)/);
    assert.match(r.stderr, /nothing was changed/);
    assert.ok(!r.stderr.includes(secret));
    const list = await cli(sandbox, ['call', 'memory_list', JSON.stringify({ status: ['pending'], limit: 20 })]);
    assert.ok(!list.stdout.includes('Deploy from main only'), list.stdout);
  });
});
