// The procedural layer end to end: the official MCP TypeScript SDK client drives real
// `kioku serve` processes (stdio) with the real procedural and affective modules.
//
// - a Markdown checklist imported with plan_create, worked through with plan_check (ready
//   set, dependency refusal, blocker), validated, archived, exported back to the same text;
// - the stale-update race with two real processes on one KIOKU_HOME: agent A marks a task
//   done while agent B, from an older plan_status (expected_version 1), sets it to doing —
//   every round the task ends done and B is refused with the current state unless it
//   went first; two other processes update different tasks and both land;
// - procedures: save (versions), find (ranked, with success rate), record runs, and the
//   run reaching the affective layer (feedback_query);
// - the layer's tool surface: names and the size of its tools/list entries.
//
// Nothing sleeps: every wait is a request/response with the SDK, under a safety timeout.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { KIOKU_BIN, callTool as call, connectSdkClient, makeSandbox, textOf } from './helpers.mjs';

if (!existsSync(KIOKU_BIN)) throw new Error(`e2e prerequisites missing: kioku binary ${KIOKU_BIN} (set KIOKU_BIN)`);

const connect = (sandbox, agent) => connectSdkClient(sandbox, { agent });


async function ok(client, name, args = {}) {
  const r = await call(client, name, args);
  assert.notEqual(r.isError, true, `${name} ${JSON.stringify(args)} failed: ${textOf(r)}`);
  return r.structuredContent;
}

async function err(client, name, args = {}) {
  const r = await call(client, name, args);
  assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} unexpectedly succeeded: ${textOf(r)}`);
  return textOf(r);
}

const PROCEDURAL_TOOLS = ['plan_check', 'plan_create', 'plan_status', 'plan_validate', 'procedure_find', 'procedure_save'];

describe('procedural layer through kioku serve', () => {
  let sandbox;
  let sessions = [];
  beforeEach(() => {
    sandbox = makeSandbox({ enabled: ['procedural', 'affective'], profile: 'full' });
  });
  afterEach(async () => {
    await Promise.all(sessions.map((s) => s.client.close()));
    sessions = [];
    sandbox?.cleanup();
  });

  test('tool surface: six tools, compact entries', async () => {
    const s = await connect(sandbox, 'surface');
    sessions.push(s);
    const mine = s.tools.filter((t) => PROCEDURAL_TOOLS.includes(t.name));
    assert.deepEqual(mine.map((t) => t.name).sort(), PROCEDURAL_TOOLS);
    const bytes = JSON.stringify(mine).length;
    // ~4 bytes per token: the layer stays well inside its share of the 4,000-token budget.
    console.log(`procedural tools/list: ${mine.length} tools, ${bytes} bytes (~${Math.ceil(bytes / 4)} tokens)`);
    assert.ok(bytes < 8000, `tools/list entries are ${bytes} bytes`);
  });

  test('Markdown plan: import, ready set, refusals, blocker, validate, archive, export', async () => {
    const s = await connect(sandbox, 'planner');
    sessions.push(s);
    const { client } = s;
    const md = '# Release 2.0\n\nShip it.\n\n- [x] Changelog\n- [ ] Publish\n  - [ ] Tag\n  - [ ] Build\n- [ ] Announce <!-- kioku:t5 after:t2 -->\n';
    const created = await ok(client, 'plan_create', { markdown: md });
    assert.match(created.plan_id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.deepEqual(created.ready, ['t3', 't4']);
    const plan = created.plan_id.slice(0, 10);

    const st = await ok(client, 'plan_status', { plan: 'latest' });
    assert.equal(st.plan.id, created.plan_id);
    assert.equal(st.plan.progress.percent, 20);
    assert.match(await err(client, 'plan_check', { plan, task: 't2', state: 'done' }), /depends on unfinished t3, t4/);
    assert.match(await err(client, 'plan_check', { plan, task: 't42', state: 'done' }), /unknown task t42/);
    assert.match(await err(client, 'plan_create', { markdown: '- [ ] a\n  - [ ] b\n   - [ ] c\n' }), /Markdown line 3/);

    await ok(client, 'plan_check', { plan, task: 't3', state: 'done' });
    const blocked = await ok(client, 'plan_check', { plan, task: 't4', block: 'CI is red' });
    assert.ok(blocked.blocker_id);
    const listed = await ok(client, 'plan_status', { status: 'blocked' });
    assert.equal(listed.plans.length, 1);
    const unblocked = await ok(client, 'plan_check', { plan, task: 't4', unblock: true, state: 'done', note: 'CI fixed' });
    assert.deepEqual(unblocked.now_ready, ['t2']);
    assert.match(await err(client, 'plan_validate', { plan, archive: true }), /archive refused: validation fails/);
    await ok(client, 'plan_check', { plan, task: 't2', state: 'done' });
    await ok(client, 'plan_check', { plan, task: 't5', state: 'skipped', note: 'announced in the PR' });
    const exported = await ok(client, 'plan_status', { plan, markdown: true, audit: 20 });
    assert.equal(
      exported.markdown,
      '# Release 2.0\n\nShip it.\n\n- [x] Changelog\n- [x] Publish\n  - [x] Tag\n  - [x] Build\n- [x] Announce <!-- kioku:t5 after:t2 state:skipped reason: announced in the PR -->\n',
    );
    assert.ok(exported.audit.some((a) => a.action === 'blocker.report' && a.by === 'planner'));
    const v = await ok(client, 'plan_validate', { plan, archive: true });
    assert.equal(v.passed, true);
    assert.equal(v.archived, true);
    assert.match(await err(client, 'plan_check', { plan, task: 't1', state: 'todo' }), /archived/);
  });

  test('stale-update race between real processes never silently reverts', async () => {
    // Every client that connected is closed by after() even when another failed to start
    // (a rejected Promise.all left the others open and the run hung).
    const settled = await Promise.allSettled(['agent-a', 'agent-b', 'agent-c', 'agent-d'].map((n) => connect(sandbox, n)));
    for (const s of settled) if (s.status === 'fulfilled') sessions.push(s.value);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    const [a, b, c, d] = settled.map((s) => s.value);
    const ROUNDS = 20;
    const tasks = [];
    for (let i = 0; i < ROUNDS * 3; i++) tasks.push({ title: `task ${i + 1}` });
    const { plan_id: plan } = await ok(a.client, 'plan_create', { title: 'race', tasks });
    let refused = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const contested = `t${round * 3 + 1}`;
      const [ra, rb, rc, rd] = await Promise.all([
        call(a.client, 'plan_check', { plan, task: contested, state: 'done' }),
        call(b.client, 'plan_check', { plan, task: contested, state: 'doing', expected_version: 1 }),
        call(c.client, 'plan_check', { plan, task: `t${round * 3 + 2}`, state: 'done' }),
        call(d.client, 'plan_check', { plan, task: `t${round * 3 + 3}`, state: 'done' }),
      ]);
      for (const r of [ra, rc, rd]) assert.notEqual(r.isError, true, textOf(r));
      if (rb.isError) {
        refused++;
        assert.match(textOf(rb), new RegExp(`stale update refused: you expected v1 but ${contested} is done \\(v2, by agent-a`));
      }
      assert.doesNotMatch(textOf(rb), /locked|busy|internal/i);
    }
    const st = await ok(a.client, 'plan_status', { plan, limit: 500, audit: 200 });
    for (const t of st.tasks) assert.equal(t.state, 'done', JSON.stringify(t));
    const transitions = st.audit.filter((x) => x.action === 'task.state').length;
    assert.equal(transitions, ROUNDS * 3 + (ROUNDS - refused), 'every landed change is audited');
  });

  test('procedures: versions, ranked find with success rate, runs reach the affective layer', async () => {
    const s = await connect(sandbox, 'chores');
    sessions.push(s);
    const { client } = s;
    await ok(client, 'procedure_save', { name: 'release', when: 'publishing a new version of the package', steps: ['bump the version', { text: 'tag', command: 'git tag v$V' }] });
    const v2 = await ok(client, 'procedure_save', { name: 'release', when: 'publishing a new version of the package', steps: ['bump the version', 'run the tests', 'tag'] });
    assert.equal(v2.version, 2);
    await ok(client, 'procedure_save', { name: 'rotate-keys', when: 'credentials expire', steps: ['create the new key', 'deploy it', 'revoke the old one'], scope: 'global' });
    assert.match(await err(client, 'procedure_save', { name: 'x', when: 'y', steps: ['  '] }), /steps\[0\] is empty/);

    const found = await ok(client, 'procedure_find', { query: 'how do I publish a new version?' });
    assert.equal(found.procedures[0].name, 'release');
    assert.equal(found.procedures[0].version, 2);
    assert.equal(found.procedures[0].steps.length, 3);
    const old = await ok(client, 'procedure_find', { name: 'release', version: 1 });
    assert.equal(old.procedures[0].steps[1].command, 'git tag v$V');

    await ok(client, 'procedure_save', { name: 'release', outcome: 'success' });
    const rec = await ok(client, 'procedure_save', { name: 'release', outcome: 'failure', note: 'tag already existed' });
    assert.equal(rec.runs, 2);
    assert.equal(rec.success_rate, 0.5);
    // The affective layer records the run event on the host's background writer (flushed
    // within about a second): poll, bounded, so a lost event still fails.
    let fb;
    for (let i = 0; i < 200; i++) {
      fb = await call(client, 'feedback_query', { tool_prefix: 'procedure/' });
      if (/procedure\/release/.test(textOf(fb))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(textOf(fb), /procedure\/release/);
  });
});
