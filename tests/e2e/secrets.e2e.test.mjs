// Host-level screening (issue 9): every write tool of every layer, called with a secret in
// each of its string arguments (ids, tags, subject, path, anchor, block keys, feedback
// fields, plan/task titles, procedure steps, transcript metadata), must leave no trace of
// the secret in the database files. The server runs all five layers; after it exits (its
// background writer flushed), the test reads `sqlite3 .dump` and the raw bytes of kioku.db
// and its WAL, and names every tool.field whose secret is found.
//
// Also: a NUL character (U+0000) in a string argument is refused whole, with a message
// naming the field, for one write tool of each layer, and nothing of it is stored.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { RawStdioServer, checkPrerequisites, makeSandbox, serveArgs } from './helpers.mjs';

checkPrerequisites();

const LAYERS = ['working', 'episodic', 'semantic', 'procedural', 'affective'];
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A GitHub token (a named rule of the screen), unique per call. */
function newSecret() {
  let tail = '';
  for (const b of randomBytes(36)) tail += ALNUM[b % ALNUM.length];
  return `ghp_${tail}`;
}

/** Sets `value` at `where` ("tags[0]", "tasks[0].title", "records[0].tool") in `args`. */
function setPath(args, where, value) {
  const parts = where.match(/[^.[\]]+/g);
  let node = args;
  for (let i = 0; i < parts.length - 1; ++i) {
    const key = /^\d+$/.test(parts[i]) ? Number(parts[i]) : parts[i];
    if (node[key] === undefined) node[key] = /^\d+$/.test(parts[i + 1]) ? [] : {};
    node = node[key];
  }
  const last = parts[parts.length - 1];
  node[/^\d+$/.test(last) ? Number(last) : last] = value;
}

async function initialize(server) {
  const init = await server.request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'secrets-e2e', version: '1' },
  });
  assert.ok(init.result, JSON.stringify(init));
}

async function call(server, name, args) {
  const r = await server.request('tools/call', { name, arguments: args });
  assert.ok(r.result, `${name}: ${JSON.stringify(r)}`);
  return r.result;
}

async function ok(server, name, args) {
  const r = await call(server, name, args);
  assert.equal(r.isError, false, `${name} ${JSON.stringify(args)}: ${r.content?.[0]?.text}`);
  return r.structuredContent;
}

/** Every byte kioku keeps: the SQL dump plus the raw database and WAL files, lower-cased. */
function storedText(home) {
  const db = path.join(home, 'kioku.db');
  let text = execFileSync('sqlite3', [db, '.dump'], { maxBuffer: 1 << 28 }).toString('latin1');
  for (const f of [db, `${db}-wal`]) if (existsSync(f)) text += readFileSync(f).toString('latin1');
  return text.toLowerCase();
}

// One row per tool: the arguments of a call that succeeds, and the string fields to put a
// secret into ('{S}' marks where inside a template, so the call stays well-formed).
// `base` may be a function of the objects made by the setup (ids).
function cases(made) {
  let n = 0;
  const fresh = (prefix) => `${prefix}-${++n}`;
  return [
    { tool: 'workspace_claim', base: () => ({ task: 'fix login', force: true }), fields: ['task', 'agent_id'] },
    { tool: 'workspace_dump', base: () => ({ reason: 'pause' }), fields: ['reason', 'agent_id'] },
    { tool: 'workspace_release', base: () => ({}), fields: ['agent_id'] },
    { tool: 'focus_update', base: () => ({ section: 'notes', content: 'c', mode: 'append' }), fields: ['content', 'agent_id'] },
    { tool: 'block_write', base: () => ({ key: fresh('k'), content: 'c' }), fields: ['key', 'content', 'agent_id'] },
    {
      tool: 'handoff_write',
      base: () => ({ summary: 's', to_agent: 'other', open_items: ['x'] }),
      fields: ['summary', 'to_agent', 'open_items[0]', 'agent_id'],
    },
    { tool: 'handoff_claim', base: () => ({ handoff_id: made.handoff }), fields: ['handoff_id', 'agent_id'] },
    { tool: 'presence_ping', base: () => ({ focus: 'f', status: 's' }), fields: ['focus', 'status', 'agent_id'] },
    {
      tool: 'file_claim',
      base: () => ({ paths: [`src/${fresh('f')}.c`], intent: 'i', ttl_seconds: 60 }),
      fields: [['paths[0]', 'src/{S}.c'], 'intent', 'agent_id'],
    },
    { tool: 'file_release', base: () => ({ paths: ['src/x.c'] }), fields: [['paths[0]', 'src/{S}.c'], 'agent_id'] },
    { tool: 'question_add', base: () => ({ question: 'q?', context: 'c' }), fields: ['question', 'context', 'agent_id'] },
    {
      tool: 'question_answer',
      base: async (server) => ({
        question_id: (await ok(server, 'question_add', { question: 'why?' })).question_id,
        answer: 'because',
      }),
      fields: ['answer', 'question_id', 'agent_id'],
    },

    {
      tool: 'session_start',
      base: () => ({ session_id: fresh('s'), title: 't' }),
      fields: ['title', 'model', ['project', '/srv/{S}'], 'session_id', 'agent_id'],
    },
    {
      tool: 'session_log',
      base: () => ({ session_id: made.session, entry: 'e', tags: ['t'], type: 'note' }),
      fields: ['entry', 'tags[0]', 'session_id', 'agent_id'],
    },
    {
      tool: 'session_end',
      base: async (server) => ({ session_id: (await ok(server, 'session_start', { session_id: fresh('end') })).session_id, summary: 's' }),
      fields: ['summary', 'model', 'session_id', 'agent_id'],
    },
    {
      tool: 'session_summary_add',
      base: () => ({ session_id: fresh('sum'), summary: 's' }),
      fields: ['summary', 'model', 'session_id', 'agent_id', 'started_at', 'ended_at'],
    },
    { tool: 'session_ingest', base: () => ({ path: made.transcript }), fields: [['path', `${made.dir}/{S}.jsonl`]] },

    {
      tool: 'memory_remember',
      base: () => ({ text: `fact ${fresh('m')} about deploys`, kind: 'fact' }),
      fields: [
        'text', 'tags[0]', 'source_ref', 'expires',
        ['subject', '{S}'], ['value', '{S}'],
        ['anchor', 'file-contains notes.txt {S}'],
        ['path', 'src/{S}.c'],
        'memories[0].text',
      ],
    },
    {
      tool: 'memory_remember',
      base: () => ({ memories: [{ text: `batch ${fresh('b')} about caches`, kind: 'fact' }] }),
      fields: ['memories[0].tags[0]', 'memories[0].subject', 'memories[0].value', 'memories[0].source_ref', ['memories[0].anchor', 'file-contains notes.txt {S}']],
    },
    {
      tool: 'memory_suggest',
      base: () => ({ text: `suggestion ${fresh('g')} about queues`, kind: 'fact' }),
      fields: ['text', 'tags[0]', 'subject', 'value', 'source_ref'],
    },
    {
      tool: 'memory_edit',
      base: () => ({ id: made.memory }),
      fields: ['text', 'tags[0]', 'subject', 'value', 'source_ref', 'id', ['anchor', 'file-contains notes.txt {S}'], ['path', 'src/{S}.c']],
    },
    { tool: 'memory_forget', base: () => ({ id: made.memory }), fields: ['id'] },
    { tool: 'memory_pin', base: () => ({ id: made.memory, pinned: true }), fields: ['id'] },
    { tool: 'memory_get', base: () => ({ id: made.memory }), fields: ['id'] }, // a read whose error quotes it
    {
      tool: 'entity_relate',
      base: () => ({ from: 'postgres', type: 'depends_on', to: fresh('svc') }),
      fields: ['from', 'to', 'type', 'from_type', 'to_type', 'valid_from', 'valid_to'],
    },
    {
      tool: 'entity_unrelate',
      base: () => ({ from: 'postgres', type: 'depends_on', to: 'svc-1' }),
      fields: ['from', 'to', 'type', 'at'],
    },

    {
      tool: 'plan_create',
      base: () => ({ title: fresh('plan'), goal: 'g', tags: ['t'], tasks: [{ title: 'a', description: 'd', criteria: ['c'] }] }),
      fields: ['title', 'goal', 'tags[0]', 'tasks[0].title', 'tasks[0].description', 'tasks[0].criteria[0]'],
    },
    { tool: 'plan_create', base: () => ({ markdown: `# ${fresh('md')}\n- [ ] step` }), fields: [['markdown', '# Plan\n- [ ] {S}']] },
    {
      tool: 'plan_check',
      base: () => ({ plan: made.plan, task: 't1', state: 'doing', note: 'n' }),
      fields: ['note', 'block', 'plan', 'task'],
    },
    { tool: 'plan_validate', base: () => ({ plan: made.plan, reason: 'r' }), fields: ['reason', 'plan'] },
    {
      tool: 'procedure_save',
      base: () => ({ name: fresh('proc'), when: 'w', note: 'n', tags: ['t'], steps: [{ text: 's', command: 'make' }] }),
      fields: ['name', 'when', 'note', 'tags[0]', 'steps[0].text', 'steps[0].command'],
    },
    { tool: 'procedure_save', base: () => ({ name: fresh('proc'), steps: ['plain step'] }), fields: ['steps[0]'] },

    {
      tool: 'feedback_record',
      base: () => ({ tool: 'bash', outcome: 'failure', error: 'exit 1' }),
      fields: ['tool', 'model', 'error_class', 'source_id', 'session_id', 'agent_id', 'project_id', 'error', 'at'],
    },
    {
      tool: 'feedback_record',
      base: () => ({ records: [{ tool: 'bash', outcome: 'failure', error: 'exit 1' }] }),
      fields: ['records[0].tool', 'records[0].model', 'records[0].error_class', 'records[0].source_id', 'records[0].session_id', 'records[0].agent_id', 'records[0].error'],
    },
  ];
}

/** A Claude Code transcript whose metadata (branch, cwd, tool names, file paths) holds secrets. */
function writeTranscript(dir, secrets) {
  const sid = '33333333-aaaa-4bbb-8ccc-000000000003';
  const s = (label) => {
    const v = newSecret();
    secrets.set(v, `session_ingest transcript ${label}`);
    return v;
  };
  const base = { isSidechain: false, userType: 'external', cwd: `/home/alex/${s('cwd')}`, sessionId: sid, version: '2.0.31', gitBranch: s('gitBranch') };
  const lines = [
    { ...base, parentUuid: null, type: 'user', uuid: '00000000-0000-4000-8000-0000000000b1', timestamp: '2025-11-03T09:41:00.000Z',
      message: { role: 'user', content: 'Please fix the deploy script.' } },
    { ...base, parentUuid: '00000000-0000-4000-8000-0000000000b1', type: 'assistant', uuid: '00000000-0000-4000-8000-0000000000b2',
      timestamp: '2025-11-03T09:41:05.000Z',
      message: { model: s('model'), id: 'msg_e2e_s', type: 'message', role: 'assistant', stop_reason: 'tool_use', usage: { input_tokens: 1, output_tokens: 1 },
        content: [{ type: 'tool_use', id: 'toolu_e2e_1', name: s('tool name'), input: { file_path: `/home/alex/${s('file_path')}.sh`, command: `curl -H "Authorization: token ${s('command')}"` } }] } },
  ];
  const file = path.join(dir, `${sid}.jsonl`);
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

describe('no secret reaches the database through any string argument of any write tool', () => {
  let sandbox;
  let server;
  const secrets = new Map(); // secret -> "tool field"
  const answers = new Map(); // "tool field" -> first 120 chars of the answer
  before(async () => {
    sandbox = makeSandbox({ enabled: LAYERS, profile: 'full', extraYaml: 'episodic:\n  ingest:\n    allowed_roots: ["*"]' });
    mkdirSync(path.join(sandbox.dir, 'src'), { recursive: true });
    writeFileSync(path.join(sandbox.dir, 'notes.txt'), 'deploy notes\n');
    server = new RawStdioServer(sandbox, {
      args: serveArgs(sandbox),
      env: sandbox.env({ KIOKU_PROJECT_ROOT: sandbox.dir, KIOKU_AGENT_ID: 'secrets-e2e' }),
    });
    await initialize(server);
  });
  after(() => {
    server?.kill();
    sandbox?.cleanup();
  });

  test('every tool.field: refused or redacted, never stored', async () => {
    const made = { dir: sandbox.dir };
    made.memory = (await ok(server, 'memory_remember', { text: 'the deploy script lives in scripts/deploy.sh', kind: 'fact' })).results[0].id;
    made.session = (await ok(server, 'session_start', { session_id: 'secrets-e2e-session', title: 't' })).session_id;
    made.plan = (await ok(server, 'plan_create', { title: 'p', tasks: [{ title: 'a' }] })).plan_id;
    made.handoff = (await ok(server, 'handoff_write', { summary: 's', to_agent: 'secrets-e2e' })).handoff_id;
    made.transcript = writeTranscript(sandbox.dir, secrets);
    await call(server, 'session_ingest', { path: made.transcript, format: 'claude-code' });

    let calls = 0;
    for (const c of cases(made)) {
      for (const field of c.fields) {
        const [where, template] = Array.isArray(field) ? field : [field, '{S}'];
        const secret = newSecret();
        const label = `${c.tool} ${where}`;
        secrets.set(secret, label);
        const args = await c.base(server);
        setPath(args, where, template.replace('{S}', secret));
        const r = await call(server, c.tool, args);
        answers.set(label, `${r.isError ? 'isError' : 'ok'}: ${r.content?.[0]?.text?.slice(0, 120)}`);
        ++calls;
      }
    }
    assert.ok(calls >= 100, `${calls} calls`);
    // Exit flushes the background writer (captured outcomes, counters) before the files are read.
    const status = await server.endAndWait();
    assert.deepEqual(status, { code: 0, signal: null }, server.stderr);

    const stored = storedText(sandbox.home);
    const leaks = [];
    for (const [secret, label] of secrets) {
      // FTS5 splits at '_' and lower-cases: look for the 36-character tail as well.
      if (stored.includes(secret.toLowerCase()) || stored.includes(secret.slice(4).toLowerCase())) {
        leaks.push(`${label} (${answers.get(label) ?? 'transcript'})`);
      }
    }
    assert.deepEqual(leaks, [], `secrets found in kioku.db:\n  ${leaks.join('\n  ')}`);
  });
});

describe('a NUL character in a string argument is refused by every layer, naming the field', () => {
  let sandbox;
  let server;
  before(async () => {
    sandbox = makeSandbox({ enabled: LAYERS, profile: 'full' });
    server = new RawStdioServer(sandbox, {
      args: serveArgs(sandbox),
      env: sandbox.env({ KIOKU_PROJECT_ROOT: sandbox.dir, KIOKU_AGENT_ID: 'nul-e2e' }),
    });
    await initialize(server);
  });
  after(() => {
    server?.kill();
    sandbox?.cleanup();
  });

  test('one write tool per layer', async () => {
    const marker = 'nulmarker';
    const cases = [
      ['block_write', { key: 'k', content: `before\u0000${marker}1` }, 'content holds a NUL character (U+0000) at character 6'],
      ['session_log', { entry: `before\u0000${marker}2` }, 'entry holds a NUL character (U+0000) at character 6'],
      ['memory_remember', { text: 'a fact', kind: 'fact', tags: [`t\u0000${marker}3`] }, 'tags[0] holds a NUL character (U+0000) at character 1'],
      ['plan_create', { title: 'p', tasks: [{ title: `x\u0000${marker}4` }] }, 'tasks[0].title holds a NUL character (U+0000) at character 1'],
      ['feedback_record', { tool: `bash\u0000${marker}5`, outcome: 'success' }, 'tool holds a NUL character (U+0000) at character 4'],
      // A read stores nothing anyway: it says what to send instead.
      ['memory_get', { id: `01AB\u0000${marker}6` }, 'id holds a NUL character', 'send the text without it'],
    ];
    for (const [tool, args, named, ending = 'nothing was stored'] of cases) {
      const r = await call(server, tool, args);
      assert.equal(r.isError, true, `${tool}: ${JSON.stringify(r)}`);
      const text = r.content[0].text;
      assert.ok(text.includes(named), `${tool}: ${text}`);
      assert.ok(text.endsWith(ending), `${tool}: the message is whole: ${text}`);
      assert.ok(!text.includes('\u0000'), `${tool}: ${JSON.stringify(text)}`);
    }
    // The same calls without the NUL work (the refusal is about the NUL only).
    await ok(server, 'block_write', { key: 'k', content: 'fine' });
    await ok(server, 'memory_remember', { text: 'a fact', kind: 'fact', tags: ['t'] });
    const status = await server.endAndWait();
    assert.deepEqual(status, { code: 0, signal: null }, server.stderr);
    assert.ok(!storedText(sandbox.home).includes(marker), 'no part of a refused argument is stored');
  });
});
