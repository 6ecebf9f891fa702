// One identity for projects and agents, end to end with real processes (issue 10):
//
// - a git checkout with a remote made in a temp dir and a plain folder; transcripts whose
//   cwd is that checkout, a plain folder, a folder that no longer exists (with and without a
//   recorded repository URL), ingested by the `kioku ingest` CLI; a server started in the
//   checkout's subfolder then sees the suggested memories and sessions (the repository is
//   the project), and the ingest answer names each session's project;
// - MCP roots sent by the official SDK client (legacy: roots/list, then
//   notifications/roots/list_changed) and by a 2026-07-28 client (InputRequiredResult, then
//   the retried call with inputResponses);
// - HTTP: two bearer tokens limited to different projects; the Kioku-Project header; 403;
// - two windows with the same KIOKU_AGENT_ID racing for one file: one wins, the other is
//   told who holds it, while memories stay shared by the agent's name;
// - a database made by kioku 0.1.0 (tests/fixtures/db/release-0.1.0.db) migrates.
//
// Nothing sleeps: every wait is a request/response or a process exit, under a safety timeout.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import {
  KIOKU_BIN,
  META_CAPS,
  META_VERSION,
  MODERN_VERSION,
  RawStdioServer,
  connectSdkClient,
  loadModernSchema,
  makeSandbox,
  runCli,
  startHttpServer,
  textOf,
  withTimeout,
} from './helpers.mjs';

if (!existsSync(KIOKU_BIN)) throw new Error(`e2e prerequisites missing: kioku binary ${KIOKU_BIN} (set KIOKU_BIN)`);

const here = path.dirname(fileURLToPath(import.meta.url));
const REMOTE_ID = 'github.com/acme/webapp';
const LAYERS = ['working', 'episodic', 'semantic', 'affective'];
const INGEST_YAML = 'episodic:\n  ingest:\n    allowed_roots: ["*"]';

/** A git checkout with `origin` = the acme/webapp remote, and an apps/api subfolder. */
function makeCheckout(dir) {
  mkdirSync(path.join(dir, 'apps', 'api', 'src'), { recursive: true });
  execFileSync('git', ['init', '-q', dir]);
  execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', 'git@github.com:acme/webapp.git']);
  return realpathSync(dir);
}

/** `kioku serve` over stdio with the SDK client; `roots` (array of folders) declares the capability. */
async function connect(sandbox, { cwd, agent = 'identity-agent', roots, env = {} }) {
  const state = { roots: roots ?? [] };
  const setup = (client) => {
    if (!roots) return;
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: state.roots.map((folder) => ({ uri: pathToFileURL(folder).href, name: path.basename(folder) })),
    }));
  };
  const session = await connectSdkClient(sandbox, {
    agent, name: 'kioku-e2e-identity', env, cwd, capabilities: roots ? { roots: { listChanged: true } } : {}, setup,
  });
  return { ...session, state };
}

async function ok(client, name, args = {}) {
  const r = await withTimeout(client.callTool({ name, arguments: args }), `tools/call ${name}`);
  assert.notEqual(r.isError, true, `${name} ${JSON.stringify(args)} failed: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
}

/** The stored memory behind a memory_remember answer (memory_get), as JSON text. */
async function stored(client, remembered) {
  const id = remembered.results[0].id;
  return JSON.stringify(await ok(client, 'memory_get', { id }));
}


/** Runs the kioku CLI to completion in `cwd`; resolves {code, stdout, stderr}. */
function cli(sandbox, args, { cwd, env = {} }) {
  return runCli(sandbox, args, { cwd, env: sandbox.env(env) });
}

function claudeLine(cwd, session, text, uuid, at) {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId: session,
    version: '2.0.31',
    gitBranch: 'main',
    type: 'user',
    message: { role: 'user', content: text },
    uuid,
    timestamp: at,
  });
}

describe('projects: transcripts, subfolders and plain folders', () => {
  let sandbox;
  let session;
  beforeEach(() => {
    sandbox = makeSandbox({ enabled: LAYERS, extraYaml: INGEST_YAML, profile: 'full' });
  });
  afterEach(async () => {
    await session?.client.close();
    session = undefined;
    sandbox?.cleanup();
  });

  test('kioku call / context --project: another project\'s memory from the CLI, by folder or key', async () => {
    const checkout = makeCheckout(path.join(sandbox.dir, 'webapp'));
    const elsewhere = path.join(sandbox.dir, 'elsewhere');
    mkdirSync(elsewhere);
    const remember = { text: 'The webapp deploys through staging', kind: 'decision', scope: 'project' };
    const wrote = await cli(sandbox, ['call', 'memory_remember', JSON.stringify(remember), '--project', path.join(checkout, 'apps', 'api')], { cwd: elsewhere });
    assert.equal(wrote.code, 0, wrote.stdout + wrote.stderr);
    // Here the working directory's project has none of it; by key it is there.
    const here = await cli(sandbox, ['call', 'memory_list', '{}'], { cwd: elsewhere });
    assert.doesNotMatch(here.stdout, /deploys through staging/);
    for (const project of [REMOTE_ID, checkout]) {
      const listed = await cli(sandbox, ['call', 'memory_list', '{}', '--project', project], { cwd: elsewhere });
      assert.equal(listed.code, 0, listed.stdout + listed.stderr);
      assert.match(listed.stdout, /deploys through staging/, project);
      assert.match(listed.stdout, new RegExp(`"project_id": "${REMOTE_ID}"`));
    }
    const context = await cli(sandbox, ['context', '--project', REMOTE_ID], { cwd: elsewhere });
    assert.match(context.stdout, /deploys through staging/, context.stdout + context.stderr);
    // --name=value too, in the commands that parse their own arguments.
    const joined = await cli(sandbox, ['context', `--project=${REMOTE_ID}`], { cwd: elsewhere });
    assert.match(joined.stdout, /deploys through staging/, joined.stdout + joined.stderr);
    const review = await cli(sandbox, ['review', `--project=${REMOTE_ID}`], { cwd: elsewhere });
    assert.equal(review.code, 0, review.stderr);
    const typo = await cli(sandbox, ['call', 'memory_list', '{}', '--project', './no-such-folder'], { cwd: elsewhere });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /--project '\.\/no-such-folder' is no folder here/);
    // An empty --project (an unset shell variable) is refused by every command, not read as
    // "this folder".
    for (const args of [['call', 'memory_list', '{}', '--project', ''], ['review', '--project', ''],
      ['import', '--project', '', path.join(elsewhere, 'CLAUDE.md')]]) {
      const empty = await cli(sandbox, args, { cwd: elsewhere });
      assert.equal(empty.code, 2, `${args.join(' ')}: ${empty.stderr}`);
      assert.match(empty.stderr, /--project is empty: send a folder or a project key/);
    }
  });

  test('ingested transcripts land in the project a server started in a subfolder sees', async () => {
    const checkout = makeCheckout(path.join(sandbox.dir, 'webapp'));
    const plain = path.join(sandbox.dir, 'plain');
    mkdirSync(plain);
    const plainReal = realpathSync(plain);
    const gone = path.join(sandbox.dir, 'moved-away', 'webapp');
    const t = path.join(sandbox.dir, 'transcripts');
    mkdirSync(t);
    writeFileSync(
      path.join(t, 'checkout.jsonl'),
      claudeLine(checkout, 'aaaaaaaa-0000-4000-8000-000000000001', 'From now on we use pnpm instead of npm here.', 'u1', '2025-11-03T09:41:27.422Z') + '\n',
    );
    writeFileSync(
      path.join(t, 'plain.jsonl'),
      claudeLine(plain, 'aaaaaaaa-0000-4000-8000-000000000002', 'We decided to keep the notes in markdown files.', 'u2', '2025-11-04T09:41:27.422Z') + '\n',
    );
    writeFileSync(
      path.join(t, 'gone.jsonl'),
      claudeLine(gone, 'aaaaaaaa-0000-4000-8000-000000000003', 'From now on run the linter before committing.', 'u3', '2025-11-05T09:41:27.422Z') + '\n',
    );
    // Codex on another machine: its cwd does not exist here, but it recorded the repository.
    writeFileSync(
      path.join(t, 'rollout-2025-11-24T15-40-11-019ab685-c378-7f12-8b4d-2e9a6c0d5f31.jsonl'),
      [
        JSON.stringify({
          timestamp: '2025-11-24T15:40:11.844Z',
          type: 'session_meta',
          payload: {
            id: '019ab685-c378-7f12-8b4d-2e9a6c0d5f31',
            timestamp: '2025-11-24T15:40:11.352Z',
            cwd: '/home/someone-else/src/webapp',
            originator: 'codex_cli_rs',
            cli_version: '0.63.0',
            source: 'cli',
            git: { commit_hash: '9b1f2e0a', branch: 'main', repository_url: 'https://github.com/acme/webapp.git' },
          },
        }),
        JSON.stringify({
          timestamp: '2025-11-24T15:40:12.470Z',
          type: 'response_item',
          payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'From now on the api answers JSON only.' }] },
        }),
        '',
      ].join('\n'),
    );

    // The CLI runs somewhere else entirely: each session goes by its own recorded cwd.
    const ingest = await cli(sandbox, ['ingest', t], { cwd: plain });
    assert.equal(ingest.code, 0, ingest.stdout + ingest.stderr);
    assert.match(ingest.stdout, new RegExp(`checkout\\.jsonl.*project ${REMOTE_ID}`));
    assert.match(ingest.stdout, /rollout-.*project github\.com\/acme\/webapp/);
    assert.match(ingest.stdout, new RegExp(`plain\\.jsonl.*project ${plainReal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(ingest.stdout, /gone\.jsonl.*project .*moved-away\/webapp/);

    // An agent started in apps/api: the repository is its project.
    session = await connect(sandbox, { cwd: path.join(checkout, 'apps', 'api') });
    const pending = await ok(session.client, 'memory_list', { status: ['pending'] });
    const texts = pending.memories.map((m) => m.text).join('\n');
    assert.match(texts, /pnpm/, JSON.stringify(pending));
    assert.doesNotMatch(texts, /markdown/, 'the plain folder is another project');
    for (const m of pending.memories.filter((m) => m.scope !== 'global')) assert.equal(m.project_id, REMOTE_ID);

    const remembered = await ok(session.client, 'memory_remember', { text: 'apps/api uses tsup to build', kind: 'fact', path: 'src/index.ts' });
    assert.ok((await stored(session.client, remembered)).includes('apps/api/src/index.ts'));

    // session_ingest (the tool) says which project each session went to.
    const again = await ok(session.client, 'session_ingest', { path: path.join(t, 'checkout.jsonl') });
    assert.ok(Array.isArray(again.files));
    await session.client.close();

    // A plain folder: its absolute path is the project, and its transcript's memory is there.
    session = await connect(sandbox, { cwd: plain });
    const plainPending = await ok(session.client, 'memory_list', { status: ['pending'] });
    assert.match(plainPending.memories.map((m) => m.text).join('\n'), /markdown/);
    const note = await ok(session.client, 'memory_remember', { text: 'plain folder note', kind: 'fact', scope: 'project' });
    assert.ok((await stored(session.client, note)).includes(plainReal));
  });
});

describe('projects: MCP roots', () => {
  let sandbox;
  let session;
  beforeEach(() => {
    sandbox = makeSandbox({ enabled: ['semantic'], profile: 'full' });
  });
  afterEach(async () => {
    await session?.client.close();
    session = undefined;
    sandbox?.cleanup();
  });

  test('legacy: roots/list decides the project; roots/list_changed updates it', async () => {
    const checkout = makeCheckout(path.join(sandbox.dir, 'webapp'));
    const other = path.join(sandbox.dir, 'other');
    mkdirSync(other);
    // Spawned in a folder that is neither root (as clients that start servers in ~ or / do).
    session = await connect(sandbox, { cwd: sandbox.dir, roots: [other, checkout] });
    const first = await ok(session.client, 'memory_remember', { text: 'roots decide the project', kind: 'fact', scope: 'project' });
    assert.ok((await stored(session.client, first)).includes(realpathSync(other)), 'the first root wins');

    session.state.roots = [checkout];
    await session.client.sendRootsListChanged();
    const second = await ok(session.client, 'memory_remember', { text: 'after list_changed', kind: 'fact', scope: 'project' });
    assert.ok((await stored(session.client, second)).includes(REMOTE_ID));
  });

  test('legacy over Streamable HTTP: roots/list rides the call\'s SSE answer; roots/list_changed updates it', async (t) => {
    const checkout = makeCheckout(path.join(sandbox.dir, 'webapp'));
    const other = path.join(sandbox.dir, 'other');
    mkdirSync(other);
    const server = await startHttpServer(sandbox);
    if (server.unsupported) return t.skip(server.unsupported);
    const client = new Client({ name: 'kioku-e2e-identity-http', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
    let roots = [other];
    let asked = 0;
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asked += 1;
      return { roots: roots.map((folder) => ({ uri: pathToFileURL(folder).href, name: path.basename(folder) })) };
    });
    try {
      await withTimeout(client.connect(new StreamableHTTPClientTransport(server.url)), 'initialize over HTTP');
      const first = await ok(client, 'memory_remember', { text: 'roots over http decide the project', kind: 'fact', scope: 'project' });
      assert.equal(asked, 1, 'the server asked for roots once');
      assert.ok((await stored(client, first)).includes(realpathSync(other)), 'the declared root is the project');

      roots = [checkout];
      await client.sendRootsListChanged();
      const second = await ok(client, 'memory_remember', { text: 'after list_changed over http', kind: 'fact', scope: 'project' });
      assert.equal(asked, 2, 'list_changed made the server ask again');
      assert.ok((await stored(client, second)).includes(REMOTE_ID));
      // Nothing queued: a plain JSON answer, the project kept.
      const third = await ok(client, 'memory_remember', { text: 'third call over http', kind: 'fact', scope: 'project' });
      assert.equal(asked, 2);
      assert.ok((await stored(client, third)).includes(REMOTE_ID));
    } finally {
      await client.close();
      await server.stop();
    }
  });

  test('legacy: the root holding the working directory wins over the first', async () => {
    const checkout = makeCheckout(path.join(sandbox.dir, 'webapp'));
    const other = path.join(sandbox.dir, 'other');
    mkdirSync(other);
    session = await connect(sandbox, { cwd: path.join(checkout, 'apps', 'api'), roots: [other, checkout] });
    const r = await ok(session.client, 'memory_remember', { text: 'cwd root wins', kind: 'fact', scope: 'project' });
    assert.ok((await stored(session.client, r)).includes(REMOTE_ID));
  });

  test('2026-07-28: InputRequiredResult asks for roots; the retry carries them', async () => {
    const checkout = makeCheckout(path.join(sandbox.dir, 'webapp'));
    const schema = await loadModernSchema();
    const server = new RawStdioServer(sandbox, {
      args: ['--config', sandbox.config, 'serve'],
      env: sandbox.env({ KIOKU_AGENT_ID: 'modern-agent' }),
    });
    try {
      const meta = { [META_VERSION]: MODERN_VERSION, [META_CAPS]: { roots: {} } };
      const params = { name: 'memory_remember', arguments: { text: 'modern roots', kind: 'fact', scope: 'project' }, _meta: meta };
      const asked = await server.request('tools/call', params);
      assert.equal(asked.result.resultType, 'input_required', JSON.stringify(asked));
      assert.equal(asked.result.inputRequests.roots.method, 'roots/list');
      schema.check('InputRequiredResult', asked.result);
      const done = await server.request('tools/call', {
        ...params,
        inputResponses: { roots: { roots: [{ uri: pathToFileURL(checkout).href }] } },
      });
      assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
      const id = done.result.structuredContent.results[0].id;
      const got = await server.request('tools/call', { name: 'memory_get', arguments: { id }, _meta: { [META_VERSION]: MODERN_VERSION, [META_CAPS]: {} } });
      assert.ok(JSON.stringify(got.result.structuredContent).includes(REMOTE_ID), JSON.stringify(got));
    } finally {
      await server.endAndWait().catch(() => server.kill());
    }
  });
});

describe('projects: HTTP per request and token limits', () => {
  let sandbox;
  let server;
  afterEach(async () => {
    await server?.stop?.();
    server = undefined;
    sandbox?.cleanup();
  });

  test('two tokens limited to different projects; Kioku-Project; 403 for another project', async (t) => {
    sandbox = makeSandbox({ enabled: ['semantic'], profile: 'full' });
    const checkout = makeCheckout(path.join(sandbox.dir, 'webapp'));
    const plain = path.join(sandbox.dir, 'plain');
    mkdirSync(plain);
    const plainReal = realpathSync(plain);
    const alice = 'alice-token-0123456789abcdef';
    const bob = 'bob-token-0123456789abcdef';
    writeFileSync(
      sandbox.config,
      [
        `home: ${JSON.stringify(sandbox.home)}`,
        'plugins:',
        '  enabled: [semantic]',
        'server:',
        '  tools:',
        '    profile: full',
        '  http:',
        '    tokens:',
        `      - {token: "${alice}", agent_id: alice, projects: [${JSON.stringify(checkout)}]}`,
        `      - {token: "${bob}", agent_id: bob, projects: [${JSON.stringify(plain)}]}`,
        '',
      ].join('\n'),
    );
    server = await startHttpServer(sandbox);
    if (server.unsupported) return t.skip(server.unsupported);
    const call = (token, args, project) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': MODERN_VERSION,
          'mcp-method': 'tools/call',
          'mcp-name': 'memory_remember',
          ...(project ? { 'kioku-project': project } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'memory_remember', arguments: args, _meta: { [META_VERSION]: MODERN_VERSION, [META_CAPS]: {} } },
        }),
      });
    const note = (text) => ({ text, kind: 'fact', scope: 'project' });

    const aliceDefault = await call(alice, note('alice default project'));
    assert.equal(aliceDefault.status, 200);

    const aliceById = await call(alice, note('alice by id'), REMOTE_ID);
    assert.equal(aliceById.status, 200);

    const aliceOther = await call(alice, note('alice elsewhere'), plain);
    assert.equal(aliceOther.status, 403);
    const refusal = await aliceOther.json();
    assert.match(refusal.error.message, /agent 'alice' may not use project/);
    assert.ok(refusal.error.message.includes(plainReal) && refusal.error.message.includes(REMOTE_ID), refusal.error.message);

    const bobOwn = await call(bob, note('bob plain'), plain);
    assert.equal(bobOwn.status, 200);
    assert.equal((await call(bob, note('bob webapp'), `${checkout}/apps/api`)).status, 403);

    // The plain JSON API follows the same rules.
    const rest = await fetch(`${server.base}/v1/tools/memory_remember`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bob}`, 'kioku-project': checkout },
      body: JSON.stringify(note('bob via rest')),
    });
    assert.equal(rest.status, 403);
  });
});

describe('agents: two windows with one configured id', () => {
  let sandbox;
  let windows = [];
  afterEach(async () => {
    for (const w of windows) await w.client.close();
    windows = [];
    sandbox?.cleanup();
  });

  test('race for one file: one wins, the other is told; memories stay shared', async () => {
    sandbox = makeSandbox({ enabled: ['working', 'semantic'], profile: 'full' });
    const checkout = makeCheckout(path.join(sandbox.dir, 'webapp'));
    windows = await Promise.all([0, 1].map(() => connect(sandbox, { cwd: checkout, agent: 'claude-main' })));
    const results = await Promise.all(
      windows.map((w) => withTimeout(w.client.callTool({ name: 'file_claim', arguments: { paths: ['src/app.ts'] } }), 'file_claim')),
    );
    const won = results.filter((r) => r.isError !== true && r.structuredContent.conflicts.length === 0);
    const lost = results.filter((r) => !(r.isError !== true && r.structuredContent.conflicts.length === 0));
    assert.equal(won.length, 1, results.map(textOf).join('\n---\n'));
    assert.equal(lost.length, 1);
    const holder = won[0].structuredContent.claims[0].holder;
    assert.match(holder, /^claude-main#[0-9a-f]{8}$/);
    assert.match(textOf(lost[0]), new RegExp(`src/app\\.ts: ${holder}`));

    // The loser trying again still conflicts (it is not the same window).
    const loser = windows[results.indexOf(lost[0])];
    const retry = await withTimeout(loser.client.callTool({ name: 'file_claim', arguments: { paths: ['src/app.ts'] } }), 'retry');
    assert.equal(retry.structuredContent.conflicts[0].holder, holder);
    // An agent_id argument contradicting the configured id is refused.
    const spoof = await withTimeout(
      loser.client.callTool({ name: 'file_claim', arguments: { paths: ['src/app.ts'], agent_id: 'someone-else' } }),
      'spoof',
    );
    assert.equal(spoof.isError, true);
    assert.match(textOf(spoof), /already identified as agent 'claude-main'/);

    // Memories are the agent's, whichever window wrote them.
    const m = await ok(windows[0].client, 'memory_remember', { text: 'window one learned the deploy order', kind: 'lesson', scope: 'project' });
    const seen = await ok(windows[1].client, 'memory_recall', { query: 'deploy order' });
    assert.ok(JSON.stringify(seen).includes('window one learned'), JSON.stringify(seen));
    const kept = await stored(windows[1].client, m);
    assert.ok(kept.includes('"agent_id":"claude-main"'), kept);
  });
});

describe('migration: a database made by kioku 0.1.0', () => {
  let sandbox;
  let session;
  afterEach(async () => {
    await session?.client.close();
    sandbox?.cleanup();
  });

  test('rows under old project spellings move to the repository project', async () => {
    sandbox = makeSandbox({ enabled: LAYERS, profile: 'full' });
    mkdirSync(sandbox.home, { recursive: true });
    copyFileSync(path.join(here, '..', 'fixtures', 'db', 'release-0.1.0.db'), path.join(sandbox.home, 'kioku.db'));
    // 0.1.0 stored the transcript's cwd as "~/kioku-release-fixture/webapp": recreate that
    // checkout under this test's HOME.
    const home = path.join(sandbox.dir, 'user-home');
    const checkout = makeCheckout(path.join(home, 'kioku-release-fixture', 'webapp'));
    session = await connect(sandbox, { cwd: path.join(checkout, 'apps', 'api'), agent: 'new-agent', env: { HOME: home } });

    const pending = await ok(session.client, 'memory_list', { status: ['pending'] });
    assert.match(pending.memories.map((m) => m.text).join('\n'), /pnpm/, JSON.stringify(pending));
    const active = await ok(session.client, 'memory_list', {});
    const byText = Object.fromEntries(active.memories.map((m) => [m.text, m]));
    const tsup = byText['The api package builds with tsup'];
    assert.ok(tsup, JSON.stringify(active));
    assert.equal(tsup.project_id, REMOTE_ID);
    assert.equal(tsup.path, 'apps/api/src/index.ts');
    assert.equal(byText['Deploys go through the staging cluster first'].project_id, REMOTE_ID);

    const inbox = await ok(session.client, 'handoff_inbox', {});
    assert.match(JSON.stringify(inbox), /tsup migration/);
    // An explicit window: the session 0.1.0 imported from a transcript (stored under
    // "~/…/webapp") started in November 2025, far outside the default last 7 days, and the
    // fixture's live session ages out of that default a week after the fixture was made.
    const timeline = await ok(session.client, 'session_timeline', { since: '2025-11-01T00:00:00Z', until: '2027-12-31T00:00:00Z' });
    const ids = JSON.stringify(timeline.sessions);
    assert.ok(ids.includes('old-api-session'), ids);
    assert.ok(ids.includes('0a1b2c3d-1111-4222-8333-444455556666'), ids);
    assert.match(JSON.stringify(timeline.decisions), /pnpm/);
  });
});
