// Vector search in procedure_find and session_recall end to end: the official MCP
// TypeScript SDK client drives the real `kioku serve` (procedural and episodic modules)
// whose providers.embedding points at a fake OpenAI-compatible embeddings server in this
// process (node:http on 127.0.0.1:0). The fake maps words to a few "concepts" (ship,
// release and publish are one), so a query sharing no word with a procedure or a summary
// is near it in meaning. `kioku embed` (a second process on the same database) embeds the
// queued rows of both layers; the server's next search sees them.
//
// Nothing sleeps: every wait is a request/response, under a safety timeout.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { KIOKU_BIN, callTool as call, connectSdkClient, makeSandbox, runCli, startFakeOpenAi, textOf } from './helpers.mjs';

if (!existsSync(KIOKU_BIN)) throw new Error(`e2e prerequisites missing: kioku binary ${KIOKU_BIN} (set KIOKU_BIN)`);

const CONCEPTS = [
  ['ship', 'release', 'publish', 'tag', 'tagged', 'published', 'version'],
  ['coffee', 'beans', 'machine', 'descale', 'refill'],
  ['database', 'postgres', 'migration', 'schema'],
];
const DIM = 8;

// One unit per concept word, a small hashed remainder for the other words.
function vectorFor(text) {
  const v = new Array(DIM).fill(0);
  for (const word of text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)) {
    const c = CONCEPTS.findIndex((words) => words.includes(word));
    if (c >= 0) {
      v[c] += 1;
    } else {
      let h = 0;
      for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
      v[CONCEPTS.length + (h % (DIM - CONCEPTS.length))] += 0.1;
    }
  }
  if (v.every((x) => x === 0)) v[DIM - 1] = 0.1;
  return v;
}


const connect = async (sandbox) => (await connectSdkClient(sandbox, { agent: 'e2e-vectors' })).client;


describe('vector search in procedure_find and session_recall through kioku serve', () => {
  let fake;
  let sandbox;
  let client;
  beforeEach(async () => {
    fake = await startFakeOpenAi({ embed: vectorFor });
    sandbox = makeSandbox({
      enabled: ['procedural', 'episodic'],
      profile: 'full',
      // The servers' own workers wait an hour: `kioku embed` decides when rows are embedded.
      extraYaml: [
        `providers:\n  embedding:\n    url: ${fake.url}\n    model: fake-concepts\n    max_retries: 0`,
        'procedural:\n  vectors: {start_delay_ms: 3600000}',
        'episodic:\n  vectors: {start_delay_ms: 3600000}',
      ].join('\n'),
    });
    client = await connect(sandbox);
  });
  afterEach(async () => {
    await client?.close();
    await fake?.close();
    sandbox?.cleanup();
  });

  test('a query sharing no word finds the procedure and the summary by meaning', async () => {
    for (const [name, when, steps] of [
      ['release-train', 'cutting a new version', ['tag the commit', 'publish the notes']],
      ['coffee', 'the machine is empty', ['refill beans', 'descale monthly']],
    ]) {
      const saved = await call(client, 'procedure_save', { name, when, steps });
      assert.ok(!saved.isError, textOf(saved));
    }
    assert.ok(!(await call(client, 'session_start', { session_id: 'e2e-s1' })).isError);
    const added = await call(client, 'session_summary_add', { session_id: 'e2e-s1', summary: 'tagged v2 and published the notes' });
    assert.ok(!added.isError, textOf(added));

    // Before anything is embedded: text only, and the answer says so in one line.
    const before = await call(client, 'procedure_find', { query: 'ship it' });
    assert.equal(before.structuredContent.vectors, 'text-only', textOf(before));
    assert.equal(before.structuredContent.procedures.length, 0);
    assert.match(textOf(before), /text-only: no procedure is embedded yet/);

    const embed = await runCli(sandbox, ['embed']);
    assert.equal(embed.code, 0, embed.stdout + embed.stderr);
    assert.match(embed.stdout, /procedures: embedded 2; 0 still queued/);
    assert.match(embed.stdout, /summaries: embedded 1; 0 still queued/);

    const found = await call(client, 'procedure_find', { query: 'ship it' });
    assert.ok(!found.isError, textOf(found));
    assert.equal(found.structuredContent.vectors, 'hybrid');
    assert.equal(found.structuredContent.procedures[0]?.name, 'release-train', textOf(found));
    assert.ok(!found.structuredContent.procedures.some((p) => p.name === 'coffee'), textOf(found));

    const recalled = await call(client, 'session_recall', { query: 'ship it' });
    assert.ok(!recalled.isError, textOf(recalled));
    assert.equal(recalled.structuredContent.vectors, 'hybrid');
    assert.equal(recalled.structuredContent.summaries[0]?.session_id, 'e2e-s1', textOf(recalled));

    const status = await runCli(sandbox, ['embed', '--status']);
    assert.equal(status.code, 0, status.stdout + status.stderr);
    assert.match(status.stdout, /procedures: recall: hybrid \(2 vectors, exact search\)/);
    assert.match(status.stdout, /summaries: recall: hybrid \(1 vectors, exact search\)/);

    // Too few rows to calibrate a floor: one line per layer, and the command still succeeds.
    const calibrate = await runCli(sandbox, ['embed', '--calibrate']);
    assert.equal(calibrate.code, 0, calibrate.stdout + calibrate.stderr);
    assert.match(calibrate.stdout, /procedures: embed --calibrate: needs at least 10 embedded procedures, found 2/);
    assert.match(calibrate.stdout, /summaries: embed --calibrate: needs at least 10 embedded summaries, found 1/);
  });
});
