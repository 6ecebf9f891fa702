// The official MCP TypeScript SDK client against `kioku serve`, over stdio and over
// Streamable HTTP, with only the fixture plugin enabled: initialize → list tools → call a
// tool (structuredContent validated by the SDK against outputSchema) → isError path →
// schema rejection → unknown tool → invalid UTF-8 output → still serving; agent identity.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

import {
  FIXTURE_PLUGIN_DIR,
  FIXTURE_TOOLS,
  KIOKU_BIN,
  RawStdioServer,
  checkPrerequisites,
  httpUnsupportedReason,
  makeSandbox,
  runCli,
  serveArgs,
  startHttpServer,
  withTimeout,
} from './helpers.mjs';

checkPrerequisites();

const CLIENT_NAME = 'kioku-e2e-client';

/** The SDK's own Ajv validator, counting how many structuredContent checks it ran. */
class CountingValidator extends AjvJsonSchemaValidator {
  constructor() {
    super();
    this.checks = 0;
  }
  getValidator(schema) {
    const validate = super.getValidator(schema);
    return (value) => {
      this.checks += 1;
      return validate(value);
    };
  }
}

function newClient(name = CLIENT_NAME) {
  const validator = new CountingValidator();
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {}, jsonSchemaValidator: validator });
  return { client, validator };
}

/** Environment for StdioClientTransport: it merges this over its safe default set. */
function stdioEnv(sandbox, extra = {}) {
  const env = sandbox.env(extra);
  const keep = ['KIOKU_HOME', 'ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'LD_LIBRARY_PATH', ...Object.keys(extra)];
  return Object.fromEntries(keep.filter((k) => env[k] !== undefined).map((k) => [k, env[k]]));
}

async function connectStdio(sandbox, { env = {}, name } = {}) {
  const { client, validator } = newClient(name);
  const transport = new StdioClientTransport({
    command: KIOKU_BIN,
    args: serveArgs(sandbox),
    env: stdioEnv(sandbox, env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  await withTimeout(client.connect(transport), 'initialize over stdio');
  return { client, validator, transport, stderr: () => stderr };
}

function textOf(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text);
}

/** The shared scenario, run once per transport; `connect()` gives {client, validator}. */
function scenario(label, connect) {
  describe(`MCP over ${label} with the SDK client`, () => {
    let sandbox;
    let session;
    before(async () => {
      sandbox = makeSandbox();
      session = await connect(sandbox);
    });
    after(async () => {
      await session?.close();
      sandbox?.cleanup();
    });

    test('initialize negotiates a version and names the server', () => {
      const { client } = session;
      assert.equal(client.getServerVersion().name, 'kioku');
      assert.equal(typeof client.getServerVersion().version, 'string');
      assert.ok(client.getServerCapabilities().tools, 'tools capability advertised');
      assert.match(client.getInstructions() ?? '', /fixture/, 'instructions mention the enabled layer');
    });

    test('tools/list lists exactly the fixture tools with schemas and annotations', async () => {
      const { client } = session;
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), FIXTURE_TOOLS);
      const again = await client.listTools();
      assert.deepEqual(again.tools.map((t) => t.name), tools.map((t) => t.name), 'deterministic order');

      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      const say = byName.echo_say;
      assert.equal(say.title, 'Echo');
      assert.match(say.description, /text/);
      assert.equal(say.inputSchema.type, 'object');
      assert.deepEqual(say.inputSchema.required, ['text']);
      assert.equal(say.inputSchema.additionalProperties, false);
      assert.deepEqual(Object.keys(say.inputSchema.properties).sort(), ['text', 'times']);
      assert.equal(say.outputSchema.type, 'object');
      assert.deepEqual(say.outputSchema.required, ['echo', 'agent_id', 'stored']);
      assert.deepEqual(say.annotations, {
        title: 'Echo',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      for (const name of ['echo_fail', 'echo_bytes', 'echo_wait']) {
        const t = byName[name];
        assert.equal(t.inputSchema.type, 'object', `${name} inputSchema`);
        assert.equal(t.outputSchema, undefined, `${name} declares no outputSchema`);
        assert.equal(t.annotations.readOnlyHint, true, `${name} readOnlyHint`);
        assert.equal(t.annotations.openWorldHint, false, `${name} openWorldHint`);
      }
    });

    test('tools/call echo_say returns text and schema-valid structuredContent', async () => {
      const { client, validator } = session;
      await client.listTools(); // caches the output validators
      const before = validator.checks;
      const first = await client.callTool({ name: 'echo_say', arguments: { text: 'hi', times: 2 } });
      assert.notEqual(first.isError, true);
      assert.equal(textOf(first)[0], 'hihi');
      assert.equal(first.structuredContent.echo, 'hihi');
      assert.equal(first.structuredContent.agent_id, CLIENT_NAME);
      assert.equal(typeof first.structuredContent.stored, 'number');
      // server.json_text_block is off by default: content carries the compact text only,
      // the JSON lives in structuredContent alone (no second copy of every result).
      assert.deepEqual(textOf(first), ['hihi'], 'no JSON text block by default');
      const second = await client.callTool({ name: 'echo_say', arguments: { text: 'yo' } });
      assert.equal(second.structuredContent.echo, 'yo');
      assert.equal(second.structuredContent.stored, first.structuredContent.stored + 1, 'rows persist');
      assert.equal(validator.checks, before + 2, 'the SDK validated both results against outputSchema');
    });

    test('a tool failure is a result with isError', async () => {
      const result = await session.client.callTool({ name: 'echo_fail', arguments: {} });
      assert.equal(result.isError, true);
      assert.match(textOf(result).join('\n'), /echo_fail always fails/);
    });

    test('arguments violating inputSchema give isError naming the field', async () => {
      const { client } = session;
      const wrongType = await client.callTool({ name: 'echo_say', arguments: { text: 5 } });
      assert.equal(wrongType.isError, true);
      assert.match(textOf(wrongType).join('\n'), /\btext\b/);
      const missing = await client.callTool({ name: 'echo_say', arguments: {} });
      assert.equal(missing.isError, true);
      assert.match(textOf(missing).join('\n'), /\btext\b/);
      const extra = await client.callTool({ name: 'echo_say', arguments: { text: 'a', loud: true } });
      assert.equal(extra.isError, true);
      assert.match(textOf(extra).join('\n'), /loud/);
      const range = await client.callTool({ name: 'echo_say', arguments: { text: 'a', times: 9 } });
      assert.equal(range.isError, true);
      assert.match(textOf(range).join('\n'), /\btimes\b/);
    });

    test('an unknown tool is JSON-RPC error -32602', async () => {
      await assert.rejects(
        session.client.callTool({ name: 'no_such_tool', arguments: {} }),
        (err) => err instanceof McpError && err.code === ErrorCode.InvalidParams && /no_such_tool/.test(err.message),
      );
    });

    test('invalid UTF-8 in tool output reaches the client as replacement characters', async () => {
      const result = await session.client.callTool({ name: 'echo_bytes', arguments: {} });
      assert.notEqual(result.isError, true);
      const text = textOf(result).join('\n');
      assert.match(text, /^bad .*bytes$/u);
      assert.ok(text.includes('\uFFFD'), `expected U+FFFD in ${JSON.stringify(text)}`);
    });

    test('a cancelled call is abandoned and the server keeps serving', async () => {
      const controller = new AbortController();
      const call = session.client.callTool({ name: 'echo_wait', arguments: { ms: 10000 } }, undefined, {
        signal: controller.signal,
        timeout: 60_000,
      });
      // The ping's answer proves the server has read the call line (it was written first).
      // Only the client side is asserted here; the raw tests below check the server's.
      await session.client.ping();
      controller.abort('test cancels');
      await assert.rejects(call);
      const pong = await session.client.ping();
      assert.deepEqual(pong, {});
    });

    test('the server still serves after all of the above', async () => {
      await session.client.ping();
      const result = await session.client.callTool({ name: 'echo_say', arguments: { text: 'still here' } });
      assert.equal(result.structuredContent.echo, 'still here');
    });
  });
}

scenario('stdio', async (sandbox) => {
  const s = await connectStdio(sandbox);
  return { ...s, close: () => s.client.close() };
});

describe('agent identity over stdio', () => {
  test('KIOKU_AGENT_ID names the agent', async () => {
    const sandbox = makeSandbox();
    const s = await connectStdio(sandbox, { env: { KIOKU_AGENT_ID: 'agent-from-env' } });
    try {
      await s.client.listTools();
      const result = await s.client.callTool({ name: 'echo_say', arguments: { text: 'x' } });
      assert.equal(result.structuredContent.agent_id, 'agent-from-env');
    } finally {
      await s.client.close();
      sandbox.cleanup();
    }
  });

  test('without KIOKU_AGENT_ID the agent is the client name', async () => {
    const sandbox = makeSandbox();
    const s = await connectStdio(sandbox, { name: 'client-name-as-agent' });
    try {
      const result = await s.client.callTool({ name: 'echo_say', arguments: { text: 'x' } });
      assert.equal(result.structuredContent.agent_id, 'client-name-as-agent');
    } finally {
      await s.client.close();
      sandbox.cleanup();
    }
  });
});

describe('the daily snapshot of kioku serve', () => {
  // Taken beside the server (not before it answers): the server serves while it runs and
  // logs the snapshot once it is whole (an exit before then abandons it: unit-tested).
  test('a server on an existing database answers while it takes the daily snapshot', async () => {
    const sandbox = makeSandbox();
    try {
      for (let run = 0; run < 2; ++run) {  // the first start creates the database, the second snapshots it
        const server = new RawStdioServer(sandbox);
        try {
          const init = await server.initializeLegacy();
          assert.equal(init.result.serverInfo.name, 'kioku');
          const said = await server.request('tools/call', { name: 'echo_say', arguments: { text: `run ${run}` } });
          assert.equal(said.result.isError ?? false, false);
          if (run === 1) await server.waitForLog(/automatic snapshot \//, 'the automatic snapshot');
          assert.deepEqual(await server.endAndWait(), { code: 0, signal: null });
        } finally {
          server.kill();
        }
      }
      const backups = path.join(sandbox.home, 'backups');
      const names = readdirSync(backups);
      assert.equal(names.filter((n) => n.endsWith('.tmp')).length, 0, `no half-written copy: ${names}`);
      const snapshots = names.filter((n) => n.endsWith('.db'));
      assert.equal(snapshots.length, 1, `one snapshot (named .db only after its integrity_check passed): ${names}`);
      const listed = await runCli(sandbox, ['--plugin-dir', FIXTURE_PLUGIN_DIR, 'backup', 'list']);
      assert.match(listed.stdout, new RegExp(snapshots[0].replace(/[.]/g, '[.]')), listed.stderr);
    } finally {
      sandbox.cleanup();
    }
  });
});

describe('cancellation over raw stdio', () => {
  /**
   * Runs echo_wait {ms} as request "slow", cancels it, pings, closes stdin and returns
   * the answers the server gave to "slow" (a cancelled request should get none).
   * `early`: the cancellation is written together with the request (it can reach the
   * server before the call has started); otherwise after a ping round trip (the server
   * has read the call line by then).
   */
  async function cancelScenario({ early }) {
    const sandbox = makeSandbox();
    const server = new RawStdioServer(sandbox);
    try {
      await server.initializeLegacy();
      const call = JSON.stringify({
        jsonrpc: '2.0',
        id: 'slow',
        method: 'tools/call',
        params: { name: 'echo_wait', arguments: { ms: 5000 } },
      });
      const cancel = JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 'slow', reason: 'test' },
      });
      if (early) {
        await server.write(`${call}\n${cancel}\n`);
      } else {
        await server.write(`${call}\n`);
        await server.request('ping', {});
        await server.write(`${cancel}\n`);
      }
      const pong = await server.request('ping', {});
      assert.deepEqual(pong.result, {});
      const status = await server.endAndWait();
      assert.deepEqual(status, { code: 0, signal: null });
      return server.lines.filter((l) => l.msg?.id === 'slow').map((l) => l.raw.toString());
    } finally {
      server.kill();
      sandbox.cleanup();
    }
  }

  // A cancellation that overtakes its call on the worker pool still wins (the dispatcher
  // keeps a raised flag for a request it has not started).

  test('a call cancelled after a ping round trip gets no response', async () => {
    assert.deepEqual(await cancelScenario({ early: false }), [], 'a cancelled request gets no response');
  });

  test('a cancellation written together with the request still wins', async () => {
    assert.deepEqual(await cancelScenario({ early: true }), [], 'a cancelled request gets no response');
  });
});

describe('stdio with a standard descriptor closed or a reader gone', () => {
  test('with stderr closed (2>&-) the protocol stream carries only JSON-RPC', async () => {
    const sandbox = makeSandbox();
    try {
      const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } });
      const out = execFileSync('sh', ['-c', 'exec "$0" "$@" 2>&-', KIOKU_BIN, ...serveArgs(sandbox)], {
        env: sandbox.env(), input: `${init}\n`, encoding: 'utf8', timeout: 30_000,
      });
      const lines = out.split('\n').filter((l) => l !== '');
      assert.equal(lines.length, 1, out);
      assert.equal(JSON.parse(lines[0]).id, 1);
      // stdout closed (>&-): the result cannot be written, and the exit code says so.
      const closed = spawnSync('sh', ['-c', 'exec "$0" "$@" >&-', KIOKU_BIN, '--config', sandbox.config,
        '--plugin-dir', FIXTURE_PLUGIN_DIR, 'call', 'echo_say', '{"text":"hi"}'], { env: sandbox.env(), encoding: 'utf8' });
      assert.equal(closed.status, 1, closed.stderr);
      assert.match(closed.stderr, /the output could not be written/);
    } finally {
      sandbox.cleanup();
    }
  });

  test('kioku serve ends when its client stops reading, though stdin stays open', async () => {
    const sandbox = makeSandbox();
    const server = new RawStdioServer(sandbox);
    try {
      await server.initializeLegacy();
      server.child.stdout.destroy();
      const status = await withTimeout(server.exited, 'kioku serve to exit after its stdout reader closed');
      assert.deepEqual(status, { code: 0, signal: null });
    } finally {
      server.kill();
      sandbox.cleanup();
    }
  });
});

const httpReason = await httpUnsupportedReason();

describe('MCP over Streamable HTTP', { skip: httpReason ? `binary reports HTTP unsupported: ${httpReason}` : false }, () => {
  scenario('HTTP', async (sandbox) => {
    const server = await startHttpServer(sandbox);
    const { client, validator } = newClient();
    const transport = new StreamableHTTPClientTransport(server.url);
    try {
      await withTimeout(client.connect(transport), 'initialize over HTTP');
    } catch (e) {
      await server.stop();
      throw e;
    }
    return {
      client,
      validator,
      transport,
      async close() {
        await transport.terminateSession();
        await client.close();
        const status = await server.stop();
        assert.deepEqual(status, { code: 0, signal: null }, `SIGTERM exit; stderr:\n${server.stderr()}`);
      },
    };
  });

  test('the HTTP session id is issued and DELETE ends it', async () => {
    const sandbox = makeSandbox();
    const server = await startHttpServer(sandbox);
    try {
      const { client } = newClient();
      const transport = new StreamableHTTPClientTransport(server.url);
      await client.connect(transport);
      assert.match(transport.sessionId ?? '', /.+/, 'Mcp-Session-Id issued on initialize');
      const id = transport.sessionId;
      await transport.terminateSession();
      const res = await fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': id,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      assert.equal(res.status, 404, 'a terminated session is unknown');
      await client.close();
    } finally {
      await server.stop();
      sandbox.cleanup();
    }
  });

  test('plain endpoints: /healthz, /v1/tools, POST /v1/tools/{name}, 202 for notifications, Origin 403', async () => {
    const sandbox = makeSandbox();
    const server = await startHttpServer(sandbox);
    try {
      const health = await fetch(`${server.base}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok', tools: FIXTURE_TOOLS.length });

      const tools = await fetch(`${server.base}/v1/tools`);
      assert.equal(tools.status, 200);
      assert.deepEqual((await tools.json()).tools.map((t) => t.name).sort(), FIXTURE_TOOLS);

      const call = await fetch(`${server.base}/v1/tools/echo_say`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'api' }),
      });
      assert.equal(call.status, 200);
      const body = await call.json();
      assert.equal(body.structuredContent.echo, 'api');
      assert.equal(body.isError, false);
      const unknown = await fetch(`${server.base}/v1/tools/no_such_tool`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(unknown.status, 404);
      await unknown.body?.cancel();

      // A legacy session, then a notification in it: 202 with an empty body.
      const init = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fetch', version: '1' } },
        }),
      });
      assert.equal(init.status, 200);
      const sessionId = init.headers.get('mcp-session-id');
      assert.ok(sessionId);
      await init.body?.cancel();
      const note = await fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      assert.equal(note.status, 202);
      assert.equal(await note.text(), '');

      const foreign = await fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          origin: 'https://evil.example',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
      assert.equal(foreign.status, 403);
      await foreign.body?.cancel();
    } finally {
      const status = await server.stop();
      assert.deepEqual(status, { code: 0, signal: null });
      sandbox.cleanup();
    }
  });

  test('a configured bearer token is required and names the agent', async () => {
    const token = 'e2e-token-0123456789abcdef';
    const sandbox = makeSandbox({
      extraYaml: `server:\n  http:\n    tokens:\n      - {token: "${token}", agent_id: "token-agent"}`,
    });
    // KIOKU_AGENT_ID is set too: the token's agent id must win (ARCHITECTURE.md "Identity").
    const server = await startHttpServer(sandbox, { env: sandbox.env({ KIOKU_AGENT_ID: 'env-agent' }) });
    try {
      const anonymous = new StreamableHTTPClientTransport(server.url);
      await assert.rejects(newClient().client.connect(anonymous), /401|nauthori/i);

      const { client } = newClient();
      await client.connect(
        new StreamableHTTPClientTransport(server.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      const result = await client.callTool({ name: 'echo_say', arguments: { text: 't' } });
      assert.equal(result.structuredContent.agent_id, 'token-agent');
      await client.close();
    } finally {
      await server.stop();
      sandbox.cleanup();
    }
  });

  test('KIOKU_AGENT_ID names the agent over HTTP too', async () => {
    const sandbox = makeSandbox();
    const server = await startHttpServer(sandbox, { env: sandbox.env({ KIOKU_AGENT_ID: 'http-agent' }) });
    try {
      const { client } = newClient();
      await client.connect(new StreamableHTTPClientTransport(server.url));
      const result = await client.callTool({ name: 'echo_say', arguments: { text: 'x' } });
      assert.equal(result.structuredContent.agent_id, 'http-agent');
      await client.close();
    } finally {
      await server.stop();
      sandbox.cleanup();
    }
  });
});
