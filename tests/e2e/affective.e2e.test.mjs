// The affective layer end to end: the official MCP TypeScript SDK client drives `kioku
// serve` (stdio) with the fixture and affective plugins enabled. Every fixture tool call is
// captured automatically with its real outcome (success, failure = isError, rejected =
// inputSchema violation); feedback_query / feedback_route see them, their structuredContent
// is validated by the SDK against the tools' outputSchema, and the affective tools do not
// record themselves. Then `kioku hook post-tool-use` records a Claude Code envelope into the
// same database, and a bad envelope still exits 0.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { FIXTURE_PLUGIN_DIR, KIOKU_BIN, checkPrerequisites, makeSandbox, runCli, serveArgs, stdoutWithoutReader, withTimeout } from './helpers.mjs';

checkPrerequisites();

const AGENT = 'e2e-affective-agent';

/** Runs `kioku hook post-tool-use` with `stdin`; resolves {code, stdout, stderr}. */
function runHook(sandbox, stdin) {
  return runCli(sandbox, ['--plugin-dir', FIXTURE_PLUGIN_DIR, 'hook', 'post-tool-use'], {
    env: sandbox.env({ KIOKU_AGENT_ID: 'claude-code-e2e' }),
    cwd: process.cwd(),
    input: stdin,
  });
}

describe('affective layer with the SDK client over stdio', () => {
  let sandbox;
  let client;

  before(async () => {
    sandbox = makeSandbox({ enabled: ['fixture', 'affective'], profile: 'full' });
    const env = sandbox.env({ KIOKU_AGENT_ID: AGENT });
    const keep = ['KIOKU_HOME', 'KIOKU_AGENT_ID', 'ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'LD_LIBRARY_PATH'];
    client = new Client({ name: 'kioku-e2e-affective', version: '1.0.0' }, { capabilities: {} });
    const transport = new StdioClientTransport({
      command: KIOKU_BIN,
      args: serveArgs(sandbox),
      env: Object.fromEntries(keep.filter((k) => env[k] !== undefined).map((k) => [k, env[k]])),
      stderr: 'pipe',
    });
    await withTimeout(client.connect(transport), 'initialize over stdio');
    await client.listTools(); // the SDK caches outputSchema validators from this
  });

  after(async () => {
    await client?.close();
    sandbox?.cleanup();
  });

  test('lists the three feedback tools with strict schemas', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ['feedback_record', 'feedback_query', 'feedback_route']) {
      assert.ok(byName[name], `${name} listed`);
      assert.equal(byName[name].inputSchema.additionalProperties, false, `${name} strict input`);
      assert.equal(byName[name].outputSchema.type, 'object', `${name} outputSchema`);
    }
    assert.equal(byName.feedback_query.annotations.readOnlyHint, true);
    assert.equal(byName.feedback_record.annotations.readOnlyHint, false);
  });

  test('captures success, failure and rejected outcomes of other tools automatically', async () => {
    assert.notEqual((await client.callTool({ name: 'echo_say', arguments: { text: 'hi' } })).isError, true);
    assert.notEqual((await client.callTool({ name: 'echo_say', arguments: { text: 'yo' } })).isError, true);
    assert.equal((await client.callTool({ name: 'echo_fail', arguments: {} })).isError, true);
    assert.equal((await client.callTool({ name: 'echo_say', arguments: { text: 5 } })).isError, true);

    // Capture is written by the host's background writer (batched, flushed within about a
    // second): poll until it lands, bounded so a lost capture still fails.
    let q;
    for (let i = 0; i < 200; i++) {
      q = await client.callTool({ name: 'feedback_query', arguments: { group_by: ['agent'] } });
      assert.notEqual(q.isError, true, JSON.stringify(q.content));
      const seen = q.structuredContent.tools.reduce((n, r) => n + r.n, 0);
      if (seen >= 4) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const rows = Object.fromEntries(q.structuredContent.tools.map((r) => [r.tool, r]));
    assert.deepEqual(Object.keys(rows).sort(), ['echo_fail', 'echo_say'], 'feedback_* calls are not recorded');
    assert.equal(rows.echo_say.n, 3);
    assert.equal(rows.echo_say.success, 2);
    assert.equal(rows.echo_say.rejected, 1);
    assert.equal(rows.echo_say.agent_id, AGENT);
    assert.equal(rows.echo_fail.failure, 1);
    assert.match(rows.echo_fail.recent_failures[0].error, /echo_fail always fails/);
    assert.equal(typeof rows.echo_say.latency_p50_ms, 'number');
  });

  test('feedback_route ranks the reliable tool first', async () => {
    const r = await client.callTool({ name: 'feedback_route', arguments: { tools: ['echo_say', 'echo_fail', 'never_used'] } });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    const names = r.structuredContent.ranking.map((e) => e.tool);
    assert.deepEqual(names, ['echo_say', 'echo_fail', 'never_used']);
    assert.ok(r.structuredContent.ranking[0].score > 0);
    assert.equal(r.structuredContent.ranking[2].n, 0);
    assert.equal(r.structuredContent.decay_from, 'totals');
  });

  test('bad feedback input is an isError result that names the field', async () => {
    const bad = await client.callTool({ name: 'feedback_record', arguments: { tool: 'Bash', outcome: 'exploded' } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /outcome/);
    const half = await client.callTool({ name: 'feedback_route', arguments: { half_life_days: 0 } });
    assert.equal(half.isError, true);
    assert.match(half.content[0].text, /half_life_days/);
  });

  test('kioku hook post-tool-use records a Claude Code envelope; bad input still exits 0', async () => {
    const envelope = {
      session_id: 'cc-session',
      transcript_path: '/tmp/x.jsonl',
      cwd: '/work/app',
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Bash',
      tool_input: { command: 'npm test' },
      tool_use_id: 'toolu_e2e_1',
      error: 'Command exited with non-zero status code 1',
      duration_ms: 4200,
    };
    const ok = await runHook(sandbox, JSON.stringify(envelope));
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, '');
    assert.equal(ok.stderr.trim(), '');

    const junk = await runHook(sandbox, 'not json {');
    assert.equal(junk.code, 0);
    assert.match(junk.stderr, /not a JSON object/);
    const empty = await runHook(sandbox, '');
    assert.equal(empty.code, 0);
    assert.match(empty.stderr, /empty stdin/);

    const q = await client.callTool({ name: 'feedback_query', arguments: { tool_prefix: 'Bash', group_by: 'agent' } });
    assert.equal(q.structuredContent.tools.length, 1);
    const bash = q.structuredContent.tools[0];
    assert.equal(bash.failure, 1);
    assert.equal(bash.agent_id, 'claude-code-e2e');
    assert.ok(Math.abs(bash.latency_p50_ms - 4200) / 4200 < 0.0906);
  });

  test('a one-shot kioku call whose reader is gone still records its outcome', async () => {
    // The pipe's read end is closed before kioku writes its result: the write fails (it used
    // to kill the process with SIGPIPE before the outcome, a deferred write, was committed).
    const agent = 'e2e-reader-gone';
    const exited = await withTimeout(
      new Promise((resolve, reject) => {
        const out = stdoutWithoutReader(sandbox.dir);
        const child = spawn(KIOKU_BIN, ['--config', sandbox.config, '--plugin-dir', FIXTURE_PLUGIN_DIR, 'call', 'echo_say',
          JSON.stringify({ text: 'reader gone' })], { env: sandbox.env({ KIOKU_AGENT_ID: agent }), stdio: ['ignore', out.fd, 'pipe'] });
        out.close();
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        child.on('error', reject);
        child.on('close', (code, signal) => resolve({ code, signal, stderr }));
      }),
      'kioku call with its stdout closed',
    );
    assert.equal(exited.signal, null, exited.stderr);
    assert.equal(exited.code, 1, exited.stderr);  // the output was lost, and the exit says so
    assert.match(exited.stderr, /the output could not be written/);
    const q = await client.callTool({ name: 'feedback_query', arguments: { tool_prefix: 'echo_say', group_by: 'agent' } });
    const row = q.structuredContent.tools.find((r) => r.agent_id === agent);
    assert.ok(row, JSON.stringify(q.structuredContent));
    assert.equal(row.success, 1);
  });

  test('kioku call without a tool name is a usage error (exit 2)', async () => {
    const r = await runCli(sandbox, ['call']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /tool is required/);
  });
});
