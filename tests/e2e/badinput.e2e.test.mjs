// Bad input over raw stdio (and over HTTP), each with an asserted answer and the server still
// serving afterwards; process lifecycle (EOF mid-line, /dev/null, a file as stdin, SIGTERM); and
// a config enabling one layer exposes exactly that layer's tools.

import assert from 'node:assert/strict';
import { openSync, closeSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  FIXTURE_PLUGIN_DIR,
  FIXTURE_TOOLS,
  RawStdioServer,
  checkPrerequisites,
  httpUnsupportedReason,
  makeSandbox,
  startHttpServer,
  withTimeout,
} from './helpers.mjs';

checkPrerequisites();

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Asserts every stdout line so far is valid UTF-8 JSON-RPC 2.0. */
function assertCleanStdout(server) {
  for (const { raw, msg } of server.lines) {
    assert.doesNotThrow(() => utf8.decode(raw), `stdout line is valid UTF-8: ${raw.toString('latin1').slice(0, 200)}`);
    assert.ok(msg !== undefined, `stdout line is JSON: ${raw.toString().slice(0, 200)}`);
    assert.equal(msg.jsonrpc, '2.0');
  }
}

async function initialize(server) {
  const init = await server.initializeLegacy('badinput-e2e');
  assert.ok(init.result, JSON.stringify(init));
}

describe('bad input over stdio', () => {
  let sandbox;
  let server;
  before(async () => {
    sandbox = makeSandbox();
    server = new RawStdioServer(sandbox);
    await initialize(server);
  });
  after(async () => {
    if (server) {
      const status = await server.endAndWait();
      assert.deepEqual(status, { code: 0, signal: null });
      server.kill();
    }
    sandbox?.cleanup();
  });

  /** The server answers a ping and a real tool call, and stdout is clean. */
  async function stillServes() {
    const pong = await server.request('ping', {});
    assert.deepEqual(pong.result, {});
    const say = await server.request('tools/call', { name: 'echo_say', arguments: { text: 'alive' } });
    assert.equal(say.result.structuredContent.echo, 'alive');
    assertCleanStdout(server);
  }

  function assertError(response, code, messageRe) {
    assert.ok(response.error, `expected error ${code}, got ${JSON.stringify(response).slice(0, 500)}`);
    assert.equal(response.error.code, code, JSON.stringify(response));
    assert.equal(typeof response.error.message, 'string');
    if (messageRe) assert.match(response.error.message, messageRe);
  }

  test('invalid JSON → -32700 with "id": null', async () => {
    const r = await server.sendExpectingNullId('{"jsonrpc": "2.0", "id": 1, "method": \n', 'truncated JSON');
    assertError(r, -32700);
    const r2 = await server.sendExpectingNullId('not json at all\n', 'plain text');
    assertError(r2, -32700);
    await stillServes();
  });

  test('a JSON array (batch) → -32600', async () => {
    const r = await server.sendExpectingNullId('[{"jsonrpc":"2.0","id":"b1","method":"ping"}]\n', 'a batch');
    assertError(r, -32600);
    const empty = await server.sendExpectingNullId('[]\n', 'an empty array');
    assertError(empty, -32600);
    assert.ok(!server.lines.some((l) => l.msg?.id === 'b1'), 'batched requests are not run');
    await stillServes();
  });

  test('JSON that is not a request object → -32600', async () => {
    for (const text of ['42', '"ping"', 'null', '{}', '{"jsonrpc":"2.0"}']) {
      const r = await server.sendExpectingNullId(`${text}\n`, text);
      assertError(r, -32600);
    }
    await stillServes();
  });

  test('a malformed envelope → -32600', async () => {
    const cases = [
      [{ jsonrpc: '1.0', id: 'e1', method: 'ping' }, 'e1'],
      [{ id: 'e2', method: 'ping' }, 'e2'],
      [{ jsonrpc: '2.0', id: 'e3', method: 5 }, 'e3'],
    ];
    for (const [message, id] of cases) {
      const answer = server.waitFor((m) => m.id === id, `answer to ${JSON.stringify(message)}`);
      await server.write(message);
      assertError(await answer, -32600);
    }
    // An id of a type JSON-RPC forbids cannot be echoed: answered without an id.
    for (const id of [{ a: 1 }, [1], true, 1.5]) {
      const r = await server.sendExpectingNullId({ jsonrpc: '2.0', id, method: 'ping' }, `id ${JSON.stringify(id)}`);
      assertError(r, -32600);
    }
    await stillServes();
  });

  test('a 10 MB message gets an answer', async () => {
    const text = 'x'.repeat(10 * 1024 * 1024);
    const r = await server.request('tools/call', { name: 'echo_say', arguments: { text } }, 'big');
    assert.equal(r.result?.isError, true, JSON.stringify(r).slice(0, 500));
    assert.match(r.result.content[0].text, /\btext\b/);
    const line = server.lines.find((l) => l.msg?.id === 'big');
    assert.ok(line.raw.length < 64 * 1024, `the answer does not echo the 10 MB value (${line.raw.length} bytes)`);
    await stillServes();
  });

  test('a message over the 16 MiB line limit → -32600, discarded, then serving', async () => {
    const huge = `{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"pad":"${'y'.repeat(17 * 1024 * 1024)}"}}\n`;
    const r = await server.sendExpectingNullId(huge, 'an oversized line');
    assertError(r, -32600);
    assert.ok(!server.lines.some((l) => l.msg?.id === 'huge'), 'the oversized request is not run');
    await stillServes();
  });

  test('wrong param types → -32602', async () => {
    const cases = [
      ['tools/call', 'a string'],
      ['tools/call', [1, 2]],
      ['tools/call', { name: 5 }],
      ['tools/call', { name: 'echo_say', arguments: [] }],
      ['tools/call', { name: 'echo_say', arguments: 'text=hi' }],
      ['tools/list', { cursor: 5 }],
      ['tools/list', { cursor: 'not-a-cursor' }],
    ];
    for (const [method, params] of cases) {
      const r = await server.request(method, params);
      assertError(r, -32602);
    }
    await stillServes();
  });

  test('missing params → -32602 naming what is needed', async () => {
    const noParams = await server.request('tools/call', undefined);
    assertError(noParams, -32602, /name/);
    const noName = await server.request('tools/call', { arguments: {} });
    assertError(noName, -32602, /name/);
    // tools/list and ping take optional params: no params is fine.
    const list = await server.request('tools/list', undefined);
    assert.deepEqual(list.result.tools.map((t) => t.name).sort(), FIXTURE_TOOLS);
    await stillServes();
  });

  test('an unknown method → -32601 with the request id', async () => {
    const r = await server.request('tools/destroy', {}, 77);
    assert.equal(r.id, 77);
    assertError(r, -32601, /tools\/destroy/);
    await stillServes();
  });

  test('notifications (also unknown ones) and blank lines get no answer', async () => {
    const before = server.lines.length;
    await server.write({ jsonrpc: '2.0', method: 'notifications/unknown_thing', params: {} });
    await server.write({ jsonrpc: '2.0', method: 'tools/list' }); // a request without id is a notification
    await server.write('\n   \n\t\n');
    await server.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never-sent' } });
    const pong = await server.request('ping', {}, 'after-notifications');
    assert.deepEqual(pong.result, {});
    assert.deepEqual(
      server.lines.slice(before).map((l) => l.msg.id),
      ['after-notifications'],
      'only the ping was answered',
    );
    await stillServes();
  });

  test('a CRLF line ending is accepted', async () => {
    const answer = server.waitFor((m) => m.id === 'crlf', 'answer to a CRLF line');
    await server.write('{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n');
    assert.deepEqual((await answer).result, {});
  });

  test('invalid UTF-8 bytes → -32700, and stdout stays valid UTF-8', async () => {
    const garbage = Buffer.from([0xff, 0xfe, 0x0a]);
    assertError(await server.sendExpectingNullId(garbage, 'raw invalid bytes'), -32700);
    const inString = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"u8","method":"tools/call","params":{"name":"echo_say","arguments":{"text":"'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}}}\n'),
    ]);
    // The id is still readable, so the error carries it (the client is not left waiting).
    const answer = server.waitFor((m) => m.id === 'u8', 'answer to invalid UTF-8 inside a string');
    await server.write(inString);
    assertError(await answer, -32700);
    const out = await server.request('tools/call', { name: 'echo_bytes', arguments: {} });
    assert.match(out.result.content[0].text, /^bad \uFFFD+ bytes$/u);
    await stillServes();
  });
});

// Hostile but small JSON, each against a fresh server (a crash must not hide other results).
const HOSTILE = [
  [
    'a number beyond double range (1e400)',
    '{"jsonrpc":"2.0","id":"n","method":"ping","params":{"x":1e400}}',
    'host bug: nlohmann throws out_of_range.406 (not parse_error); the stdio loop lets it escape and kioku exits 1 ' +
      '(HTTP answers 500)',
  ],
  [
    'nesting 200000 levels deep (a 400 KB line)',
    `{"jsonrpc":"2.0","id":"d","method":"ping","params":{"x":${'['.repeat(200000)}${']'.repeat(200000)}}}`,
    'host bug: no nesting-depth bound; recursive copy/destroy overflows the stack and kioku dies with SIGSEGV ' +
      '(over HTTP too)',
  ],
];

describe('hostile JSON over stdio', () => {
  for (const [what, line] of HOSTILE) {
    test(`${what} → an error answer, and the server still serves`, async () => {
      const sandbox = makeSandbox();
      const server = new RawStdioServer(sandbox);
      try {
        const from = server.lines.length;
        await server.write(`${line}\n`);
        const pong = await server.request('ping', {}, 'after-hostile');
        assert.deepEqual(pong.result, {});
        const answers = server.lines.slice(from, -1).map((l) => l.msg);
        assert.equal(answers.length, 1, JSON.stringify(answers));
        assert.ok([-32700, -32600, -32602].includes(answers[0].error?.code), JSON.stringify(answers[0]));
        assertCleanStdout(server);
        assert.deepEqual(await server.endAndWait(), { code: 0, signal: null });
      } finally {
        server.kill();
        sandbox.cleanup();
      }
    });
  }
});

describe('stdio lifecycle', () => {
  let sandbox;
  before(() => {
    sandbox = makeSandbox();
  });
  after(() => sandbox?.cleanup());

  test('stdin closing mid-line: exits 0; a complete final request without newline is answered', async () => {
    const server = new RawStdioServer(sandbox);
    try {
      await initialize(server);
      await server.write('{"jsonrpc":"2.0","id":"last","method":"ping"}');
      const status = await server.endAndWait();
      assert.deepEqual(status, { code: 0, signal: null });
      const last = server.lines.find((l) => l.msg?.id === 'last');
      assert.deepEqual(last?.msg.result, {}, 'the unterminated last request is answered');
      assertCleanStdout(server);
    } finally {
      server.kill();
    }
  });

  test('stdin closing after half a request: exits 0 with at most a parse error for it', async () => {
    const server = new RawStdioServer(sandbox);
    try {
      await initialize(server);
      const before = server.lines.length;
      await server.write('{"jsonrpc":"2.0","id":"half","method":"tools/ca');
      const status = await server.endAndWait();
      assert.deepEqual(status, { code: 0, signal: null });
      const rest = server.lines.slice(before).map((l) => l.msg);
      assert.ok(rest.length <= 1, JSON.stringify(rest));
      if (rest.length === 1) assert.equal(rest[0].error?.code, -32700, JSON.stringify(rest));
      assertCleanStdout(server);
    } finally {
      server.kill();
    }
  });

  test('stdin from /dev/null: exits 0 with nothing on stdout', async () => {
    const fd = openSync('/dev/null', 'r');
    const server = new RawStdioServer(sandbox, { stdin: fd });
    closeSync(fd);
    try {
      const status = await server.waitExit();
      assert.deepEqual(status, { code: 0, signal: null }, server.stderr);
      assert.equal(server.lines.length, 0);
    } finally {
      server.kill();
    }
  });

  test('stdin from a regular file: every request answered in order, then exit 0', async () => {
    const file = path.join(sandbox.dir, 'requests.jsonl');
    writeFileSync(
      file,
      [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'file', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', id: 3, method: 'ping' },
      ]
        .map((m) => JSON.stringify(m))
        .join('\n') + '\n',
    );
    const fd = openSync(file, 'r');
    const server = new RawStdioServer(sandbox, { stdin: fd });
    closeSync(fd);
    try {
      const status = await server.waitExit();
      assert.deepEqual(status, { code: 0, signal: null }, server.stderr);
      assert.deepEqual(server.lines.map((l) => l.msg.id), [1, 2, 3]);
      assert.equal(server.lines[0].msg.result.protocolVersion, '2025-06-18');
      assert.deepEqual(server.lines[1].msg.result.tools.map((t) => t.name).sort(), FIXTURE_TOOLS);
    } finally {
      server.kill();
    }
  });

  test('SIGTERM ends a serving process with exit 0', async () => {
    const server = new RawStdioServer(sandbox);
    try {
      await initialize(server);
      assert.deepEqual((await server.request('ping', {})).result, {});
      server.child.kill('SIGTERM');
      const status = await server.waitExit();
      assert.deepEqual(status, { code: 0, signal: null }, server.stderr);
      assertCleanStdout(server);
    } finally {
      server.kill();
    }
  });

  test('SIGTERM during a running tool call still exits 0', async () => {
    const server = new RawStdioServer(sandbox);
    try {
      await initialize(server);
      // The call is running once it is past the dispatcher; a later ping proves the
      // reader thread is free, not that the call started, so only the exit is asserted.
      await server.write({ jsonrpc: '2.0', id: 'busy', method: 'tools/call', params: { name: 'echo_wait', arguments: { ms: 3000 } } });
      await server.request('ping', {});
      server.child.kill('SIGTERM');
      const status = await server.waitExit();
      assert.deepEqual(status, { code: 0, signal: null }, server.stderr);
      assertCleanStdout(server);
    } finally {
      server.kill();
    }
  });

  // A call is cancelled at whatever stage SIGTERM finds it: written but not yet read, read
  // and queued for a worker, or running. More calls than workers (4) keep some queued, and
  // nothing here depends on how far the server got: none may answer "waited".
  for (const stage of ['written', 'read']) {
    test(`SIGTERM cancels calls at every stage instead of waiting for them (${stage})`, async () => {
      const server = new RawStdioServer(sandbox);
      try {
        await initialize(server);
        const ids = [1, 2, 3, 4, 5, 6].map((n) => `busy-${n}`);
        for (const id of ids) {
          await server.write({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo_wait', arguments: { ms: 10000 } } });
        }
        if (stage === 'read') await server.request('ping', {});  // every call line has been read
        server.child.kill('SIGTERM');
        assert.deepEqual(await server.waitExit(), { code: 0, signal: null }, server.stderr);
        const answers = server.lines.filter((l) => ids.includes(l.msg?.id)).map((l) => l.msg);
        for (const answer of answers) {
          assert.notEqual(answer?.result?.content?.[0]?.text, 'waited', JSON.stringify(answer));
        }
      } finally {
        server.kill();
      }
    });
  }
});

describe('config selects the layers', () => {
  test('enabling only the fixture layer exposes exactly its 4 tools', async () => {
    const sandbox = makeSandbox({ enabled: ['fixture'] });
    const server = new RawStdioServer(sandbox);
    try {
      await initialize(server);
      const list = await server.request('tools/list', {});
      assert.deepEqual(list.result.tools.map((t) => t.name).sort(), FIXTURE_TOOLS);
      assert.equal(list.result.nextCursor, undefined);
      assert.deepEqual(await server.endAndWait(), { code: 0, signal: null });
    } finally {
      server.kill();
      sandbox.cleanup();
    }
  });

  test('enabling no layer exposes no tools', async () => {
    const sandbox = makeSandbox({ enabled: [] });
    const server = new RawStdioServer(sandbox);
    try {
      await initialize(server);
      const list = await server.request('tools/list', {});
      assert.deepEqual(list.result.tools, []);
      const call = await server.request('tools/call', { name: 'echo_say', arguments: { text: 'x' } });
      assert.equal(call.error?.code, -32602);
      assert.deepEqual(await server.endAndWait(), { code: 0, signal: null });
    } finally {
      server.kill();
      sandbox.cleanup();
    }
  });

  test('tools/list pages with nextCursor when tools_page_size is small', async () => {
    const sandbox = makeSandbox({ extraYaml: 'server:\n  tools_page_size: 3' });
    const server = new RawStdioServer(sandbox);
    try {
      await initialize(server);
      const first = await server.request('tools/list', {});
      assert.equal(first.result.tools.length, 3);
      assert.equal(typeof first.result.nextCursor, 'string');
      const second = await server.request('tools/list', { cursor: first.result.nextCursor });
      assert.equal(second.result.tools.length, 1);
      assert.equal(second.result.nextCursor, undefined);
      const names = [...first.result.tools, ...second.result.tools].map((t) => t.name);
      assert.deepEqual([...names].sort(), FIXTURE_TOOLS);
      assert.equal(new Set(names).size, names.length, 'no tool on two pages');
      assert.deepEqual(await server.endAndWait(), { code: 0, signal: null });
    } finally {
      server.kill();
      sandbox.cleanup();
    }
  });

  /** Starts kioku with `args`/`env`, lists tools over stdio, returns the names (sorted). */
  async function toolsWith(sandbox, args, env) {
    const server = new RawStdioServer(sandbox, { args, env });
    try {
      const list = await server.request('tools/list', {});
      assert.ok(list.result, `${JSON.stringify(list)}; stderr:\n${server.stderr}`);
      assert.deepEqual(await server.endAndWait(), { code: 0, signal: null });
      return list.result.tools.map((t) => t.name).sort();
    } catch (e) {
      e.message += `\nstderr:\n${server.stderr}`;
      throw e;
    } finally {
      server.kill();
    }
  }

  test('KIOKU_CONFIG selects the config file and KIOKU_PLUGIN_PATH adds a plugin dir', async () => {
    const sandbox = makeSandbox();
    try {
      const env = sandbox.env({ KIOKU_CONFIG: sandbox.config, KIOKU_PLUGIN_PATH: FIXTURE_PLUGIN_DIR });
      assert.deepEqual(await toolsWith(sandbox, ['serve'], env), FIXTURE_TOOLS);
    } finally {
      sandbox.cleanup();
    }
  });

  test(
    'kioku serve --config F --plugin-dir D (options after the subcommand) serves',
    async () => {
      const sandbox = makeSandbox();
      try {
        const args = ['serve', '--config', sandbox.config, '--plugin-dir', FIXTURE_PLUGIN_DIR];
        assert.deepEqual(await toolsWith(sandbox, args, sandbox.env()), FIXTURE_TOOLS);
      } finally {
        sandbox.cleanup();
      }
    },
  );

  test('a config naming a missing plugin fails at start with one line naming it', async () => {
    const sandbox = makeSandbox({ enabled: ['fixture', 'no_such_layer'] });
    const server = new RawStdioServer(sandbox);
    try {
      const status = await withTimeout(server.waitExit(), 'kioku to refuse the config');
      assert.notEqual(status.code, 0);
      assert.match(server.stderr, /no_such_layer/);
      assert.match(server.stderr, /kioku\.yaml/);
      assert.equal(server.lines.length, 0, 'nothing on stdout');
    } finally {
      server.kill();
      sandbox.cleanup();
    }
  });
});

const httpReason = await httpUnsupportedReason();

describe('bad input over HTTP', { skip: httpReason ? `binary reports HTTP unsupported: ${httpReason}` : false }, () => {
  let sandbox;
  let server;
  let sessionId;
  const headers = () => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
  });
  async function post(body) {
    const res = await fetch(server.url, { method: 'POST', headers: headers(), body });
    const text = await res.text();
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json };
  }
  async function stillServes() {
    const r = await post(JSON.stringify({ jsonrpc: '2.0', id: 'alive', method: 'tools/call', params: { name: 'echo_say', arguments: { text: 'alive' } } }));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.result.structuredContent.echo, 'alive');
  }

  before(async () => {
    sandbox = makeSandbox();
    server = await startHttpServer(sandbox);
    const init = await fetch(server.url, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bad-http', version: '1' } },
      }),
    });
    assert.equal(init.status, 200);
    sessionId = init.headers.get('mcp-session-id');
    await init.body?.cancel();
  });
  after(async () => {
    if (server) assert.deepEqual(await server.stop(), { code: 0, signal: null });
    sandbox?.cleanup();
  });

  test('invalid JSON → 400 with -32700', async () => {
    const r = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32700);
    assert.strictEqual(r.json.id, null, 'JSON-RPC 2.0 section 5: an unreadable id is null');
    await stillServes();
  });

  test('a JSON array → 400 with -32600', async () => {
    const r = await post('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32600);
    await stillServes();
  });

  test('a 10 MB body → 413 (over max_body_bytes), then serving', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo_say', arguments: { text: 'x'.repeat(10 * 1024 * 1024) } } });
    let status;
    try {
      status = (await post(big)).status;
    } catch (e) {
      // The server may answer 413 and close before the whole body is sent; fetch then
      // reports the reset instead of the status. Either way it refused the body.
      status = `connection closed: ${e.cause?.code ?? e.message}`;
    }
    assert.ok(status === 413 || /closed/.test(String(status)), `expected 413, got ${status}`);
    await stillServes();
  });

  test('wrong param types, missing params, unknown method, unknown tool', async () => {
    const cases = [
      [{ jsonrpc: '2.0', id: 3, method: 'tools/call', params: 'x' }, -32602],
      [{ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 7 } }, -32602],
      [{ jsonrpc: '2.0', id: 5, method: 'tools/call' }, -32602],
      [{ jsonrpc: '2.0', id: 6, method: 'tools/destroy', params: {} }, -32601],
      [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'no_such_tool' } }, -32602],
    ];
    for (const [message, code] of cases) {
      const r = await post(JSON.stringify(message));
      assert.equal(r.json?.error?.code, code, `${JSON.stringify(message)} → ${r.status} ${r.text}`);
      assert.equal(r.json.id, message.id);
    }
    await stillServes();
  });

  test('invalid UTF-8 in the body → -32700, and tool output with invalid UTF-8 is valid JSON', async () => {
    const body = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo_say","arguments":{"text":"'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}}}'),
    ]);
    const res = await fetch(server.url, { method: 'POST', headers: headers(), body });
    const raw = Buffer.from(await res.arrayBuffer());
    assert.doesNotThrow(() => utf8.decode(raw));
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(raw.toString()).error.code, -32700);
    assert.equal(JSON.parse(raw.toString()).id, 8, 'the id is still readable, so the error carries it');
    const bytes = await post(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo_bytes', arguments: {} } }));
    assert.match(bytes.json.result.content[0].text, /^bad \uFFFD+ bytes$/u);
    await stillServes();
  });
});

describe('hostile JSON over HTTP', { skip: httpReason ? `binary reports HTTP unsupported: ${httpReason}` : false }, () => {
  for (const [what, line] of HOSTILE) {
    test(`${what} → 400, and the server still serves`, async () => {
      const sandbox = makeSandbox();
      const server = await startHttpServer(sandbox);
      try {
        // A modern (stateless) request, so it passes the session and header checks and
        // reaches the dispatcher.
        const headers = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'ping',
        };
        const meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},';
        const body = line.replace('"params":{', `"params":{${meta}`);
        let status;
        try {
          status = (await fetch(server.url, { method: 'POST', headers, body })).status;
        } catch (e) {
          status = `request failed: ${e.cause?.code ?? e.message}`;
        }
        assert.equal(status, 400);
        const health = await fetch(`${server.base}/healthz`);
        assert.equal(health.status, 200);
        assert.deepEqual(await server.stop(), { code: 0, signal: null });
      } finally {
        server.child.kill('SIGKILL');
        sandbox.cleanup();
      }
    });
  }
});

describe('HTTP hardening', { skip: httpReason ? `binary reports HTTP unsupported: ${httpReason}` : false }, () => {
  // Node's fetch (what the MCP TypeScript SDK uses) writes the whole body before it reads:
  // a server that answers 413 and closes at once made it fail with EPIPE/ECONNRESET.
  test('a body over max_body_bytes is a 413 that fetch actually sees (JSON-RPC on /mcp)', async () => {
    const sandbox = makeSandbox();
    const server = await startHttpServer(sandbox);
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(5 * 1024 * 1024) } });
      for (const [url, rpc] of [[server.url, true], [`${server.base}/v1/tools/echo_say`, false]]) {
        let res;
        try {
          res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
        } catch (e) {
          assert.fail(`fetch failed instead of reading the 413: ${e.cause?.code ?? e.message}`);
        }
        assert.equal(res.status, 413);
        const answer = await res.json();
        if (rpc) {
          assert.equal(answer.jsonrpc, '2.0');
          assert.equal(answer.error.code, -32600);
        } else {
          assert.match(answer.error, /max_body_bytes/);
        }
      }
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
    } finally {
      sandbox.cleanup();
    }
  });

  // DNS rebinding: a page served as rebind.evil.example whose name now resolves to 127.0.0.1.
  test('a loopback server refuses a foreign Host header on /mcp and /v1/tools', async () => {
    const sandbox = makeSandbox();
    const server = await startHttpServer(sandbox);
    const http = await import('node:http');
    const send = (pathname, host, body) =>
      new Promise((resolve, reject) => {
        const u = new URL(server.base);
        const req = http.request(
          { host: u.hostname, port: u.port, path: pathname, method: 'POST', setHost: false,
            headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
          (res) => {
            let data = '';
            res.on('data', (c) => (data += c));
            res.on('end', () => resolve({ status: res.statusCode, body: data }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    try {
      const evil = await send('/v1/tools/echo_say', 'rebind.evil.example', JSON.stringify({ text: 'x' }));
      assert.equal(evil.status, 403, evil.body);
      const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
      const evilMcp = await send('/mcp', 'rebind.evil.example:7077', init);
      assert.equal(evilMcp.status, 403);
      assert.equal(JSON.parse(evilMcp.body).error.code, -32600);
      const ok = await send('/v1/tools/echo_say', `localhost:${new URL(server.base).port}`, JSON.stringify({ text: 'x' }));
      assert.equal(ok.status, 200, ok.body);
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
    } finally {
      sandbox.cleanup();
    }
  });
});
