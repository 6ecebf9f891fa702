// Modern-era (2026-07-28) MCP against `kioku serve`: stateless requests carrying `_meta`
// (protocol version, client capabilities), answers checked with Ajv against the official
// schema (tests/e2e/schemas/mcp-schema-2026-07-28.json, a copy of shared/reference/); also
// the legacy answers against mcp-schema-2025-11-25.json. Raw newline-delimited JSON-RPC
// over the stdio pipe, and over HTTP the header checks of the Streamable HTTP transport.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  FIXTURE_TOOLS,
  META_CAPS,
  META_CLIENT,
  META_VERSION,
  MODERN_VERSION,
  RawStdioServer,
  checkPrerequisites,
  httpUnsupportedReason,
  loadLegacySchema,
  loadModernSchema,
  makeSandbox,
  modernMeta,
  startHttpServer,
} from './helpers.mjs';

checkPrerequisites();
const schema = await loadModernSchema();
const legacySchema = await loadLegacySchema();
const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];

/** Checks the JSON-RPC envelope and the result/error against the named definitions. */
function checkResult(response, responseDef) {
  assert.ok('result' in response, `expected a result, got ${JSON.stringify(response)}`);
  schema.check(responseDef, response);
}
function checkError(response, code, errorDef) {
  assert.ok('error' in response, `expected an error, got ${JSON.stringify(response)}`);
  assert.equal(response.error.code, code, JSON.stringify(response));
  schema.check('JSONRPCErrorResponse', response);
  if (!errorDef) return;
  // Some definitions describe the whole response (jsonrpc, id, error), others the error object.
  const whole = 'jsonrpc' in (schema.defs[errorDef].properties ?? {});
  schema.check(errorDef, whole ? response : response.error);
}

function checkServerInfo(result) {
  assert.equal(result._meta?.['io.modelcontextprotocol/serverInfo']?.name, 'kioku', 'serverInfo in _meta');
}

describe('modern era over raw stdio', () => {
  let sandbox;
  let server;
  before(() => {
    sandbox = makeSandbox();
    server = new RawStdioServer(sandbox);
  });
  after(async () => {
    if (server) {
      const status = await server.endAndWait();
      assert.deepEqual(status, { code: 0, signal: null });
      const bad = server.lines.filter((l) => l.msg === undefined).map((l) => l.raw.toString());
      assert.deepEqual(bad, [], 'every stdout line is a JSON message');
      server.kill();
    }
    sandbox?.cleanup();
  });

  test('server/discover without initialize conforms to DiscoverResult', async () => {
    const response = await server.request('server/discover', {
      _meta: modernMeta({ [META_CLIENT]: { name: 'modern-e2e', version: '1.0.0' } }),
    });
    checkResult(response, 'DiscoverResultResponse');
    const result = response.result;
    assert.equal(result.resultType, 'complete');
    assert.ok(result.supportedVersions.includes(MODERN_VERSION));
    for (const v of LEGACY_VERSIONS) assert.ok(result.supportedVersions.includes(v), `supports ${v}`);
    assert.ok(result.capabilities.tools, 'tools capability');
    assert.ok(Number.isInteger(result.ttlMs) && result.ttlMs >= 0);
    assert.ok(['public', 'private'].includes(result.cacheScope));
    assert.match(result.instructions, /fixture/);
    checkServerInfo(result);
  });

  test('tools/list conforms to ListToolsResult with ttlMs, cacheScope, resultType', async () => {
    const response = await server.request('tools/list', { _meta: modernMeta() });
    checkResult(response, 'ListToolsResultResponse');
    const result = response.result;
    assert.equal(result.resultType, 'complete');
    assert.ok(Number.isInteger(result.ttlMs));
    assert.ok(['public', 'private'].includes(result.cacheScope));
    assert.deepEqual(result.tools.map((t) => t.name).sort(), FIXTURE_TOOLS);
    assert.equal(result.nextCursor, undefined);
    checkServerInfo(result);
  });

  test('tools/call conforms to CallToolResult and structuredContent to the outputSchema', async () => {
    const list = await server.request('tools/list', { _meta: modernMeta() });
    const say = list.result.tools.find((t) => t.name === 'echo_say');
    const validateOutput = schema.ajv.compile(say.outputSchema);

    const response = await server.request('tools/call', {
      name: 'echo_say',
      arguments: { text: 'modern', times: 2 },
      _meta: modernMeta({ [META_CLIENT]: { name: 'modern-e2e', version: '1.0.0' } }),
    });
    checkResult(response, 'CallToolResultResponse');
    const result = response.result;
    assert.equal(result.resultType, 'complete');
    assert.equal(result.isError, false);
    assert.ok(validateOutput(result.structuredContent), JSON.stringify(validateOutput.errors));
    assert.equal(result.structuredContent.echo, 'modernmodern');
    assert.equal(result.structuredContent.agent_id, 'modern-e2e', 'agent from _meta clientInfo');
    assert.equal(result.content[0].text, 'modernmodern');
    checkServerInfo(result);
  });

  test('tool failures and schema violations are CallToolResults with isError', async () => {
    const fail = await server.request('tools/call', { name: 'echo_fail', arguments: {}, _meta: modernMeta() });
    checkResult(fail, 'CallToolResultResponse');
    assert.equal(fail.result.isError, true);
    assert.match(fail.result.content[0].text, /echo_fail always fails/);

    const bad = await server.request('tools/call', { name: 'echo_say', arguments: { text: 5 }, _meta: modernMeta() });
    checkResult(bad, 'CallToolResultResponse');
    assert.equal(bad.result.isError, true);
    assert.match(bad.result.content.map((c) => c.text).join('\n'), /\btext\b/);
  });

  test('an unknown tool is -32602 and an unknown method -32601', async () => {
    const tool = await server.request('tools/call', { name: 'no_such_tool', arguments: {}, _meta: modernMeta() });
    checkError(tool, -32602, 'InvalidParamsError');
    assert.match(tool.error.message, /no_such_tool/);
    const method = await server.request('prompts/list', { _meta: modernMeta() });
    checkError(method, -32601, 'MethodNotFoundError');
  });

  test('an unsupported protocol version is -32022 listing the supported ones', async () => {
    const response = await server.request('tools/list', {
      _meta: { [META_VERSION]: '2099-01-01', [META_CAPS]: {} },
    });
    checkError(response, -32022, 'UnsupportedProtocolVersionError');
    assert.equal(response.error.data.requested, '2099-01-01');
    assert.ok(response.error.data.supported.includes(MODERN_VERSION));
  });

  test('a modern request without clientCapabilities is -32602', async () => {
    for (const method of ['server/discover', 'tools/list']) {
      const response = await server.request(method, { _meta: { [META_VERSION]: MODERN_VERSION } });
      checkError(response, -32602, 'InvalidParamsError');
      assert.match(response.error.message, /clientCapabilities/);
    }
    const call = await server.request('tools/call', {
      name: 'echo_say',
      arguments: { text: 'x' },
      _meta: { [META_VERSION]: MODERN_VERSION },
    });
    checkError(call, -32602, 'InvalidParamsError');
  });

  test('a non-string protocol version is -32602', async () => {
    const response = await server.request('tools/list', { _meta: { [META_VERSION]: 20260728, [META_CAPS]: {} } });
    checkError(response, -32602, 'InvalidParamsError');
  });

  test('one process serves both eras: legacy initialize, then modern and legacy requests', async () => {
    const init = await server.initializeLegacy('legacy-e2e');
    assert.equal(init.result.protocolVersion, '2025-11-25');
    const legacy = await server.request('tools/list', {});
    assert.equal(legacy.result.resultType, undefined, 'legacy results carry no resultType');
    assert.equal(legacy.result.ttlMs, undefined);
    const modern = await server.request('tools/list', { _meta: modernMeta() });
    checkResult(modern, 'ListToolsResultResponse');
  });
});

describe('legacy era (2025-11-25) answers over raw stdio conform to that schema', () => {
  test('initialize, tools/list, tools/call, errors', async () => {
    const sandbox = makeSandbox();
    const server = new RawStdioServer(sandbox);
    try {
      const init = await server.initializeLegacy('legacy-schema');
      legacySchema.check('JSONRPCResultResponse', init);
      legacySchema.check('InitializeResult', init.result);

      const list = await server.request('tools/list', {});
      legacySchema.check('ListToolsResult', list.result);
      for (const [name, args] of [
        ['echo_say', { text: 'x' }],
        ['echo_fail', {}],
        ['echo_bytes', {}],
        ['echo_say', { text: 5 }],
      ]) {
        const call = await server.request('tools/call', { name, arguments: args });
        legacySchema.check('JSONRPCResultResponse', call);
        legacySchema.check('CallToolResult', call.result);
      }
      const ping = await server.request('ping', {});
      legacySchema.check('EmptyResult', ping.result);
      for (const [method, params] of [
        ['tools/call', { name: 'no_such_tool' }],
        ['no/such/method', {}],
      ]) {
        const err = await server.request(method, params);
        legacySchema.check('JSONRPCErrorResponse', err);
      }
      assert.deepEqual(await server.endAndWait(), { code: 0, signal: null });
    } finally {
      server.kill();
      sandbox.cleanup();
    }
  });
});

const httpReason = await httpUnsupportedReason();

describe('modern era over HTTP', { skip: httpReason ? `binary reports HTTP unsupported: ${httpReason}` : false }, () => {
  let sandbox;
  let server;
  before(async () => {
    sandbox = makeSandbox();
    server = await startHttpServer(sandbox);
  });
  after(async () => {
    if (server) {
      const status = await server.stop();
      assert.deepEqual(status, { code: 0, signal: null });
    }
    sandbox?.cleanup();
  });

  /** POSTs one JSON-RPC message; `headers` are added to the usual modern ones (null removes). */
  async function post(message, headers = {}) {
    const all = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': message.method,
      ...(message.method === 'tools/call' ? { 'mcp-name': message.params.name } : {}),
      ...headers,
    };
    for (const [k, v] of Object.entries(all)) if (v === null) delete all[k];
    const res = await fetch(server.url, { method: 'POST', headers: all, body: JSON.stringify(message) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  }
  const rpc = (id, method, params) => ({ jsonrpc: '2.0', id, method, params });

  test('server/discover with matching headers conforms to DiscoverResult', async () => {
    const { status, body } = await post(rpc(1, 'server/discover', { _meta: modernMeta() }));
    assert.equal(status, 200);
    checkResult(body, 'DiscoverResultResponse');
  });

  test('tools/list and tools/call conform to the schema', async () => {
    const list = await post(rpc(2, 'tools/list', { _meta: modernMeta() }));
    assert.equal(list.status, 200);
    checkResult(list.body, 'ListToolsResultResponse');
    assert.deepEqual(list.body.result.tools.map((t) => t.name).sort(), FIXTURE_TOOLS);
    const call = await post(rpc(3, 'tools/call', { name: 'echo_say', arguments: { text: 'h' }, _meta: modernMeta() }));
    assert.equal(call.status, 200);
    checkResult(call.body, 'CallToolResultResponse');
    assert.equal(call.body.result.structuredContent.echo, 'h');
  });

  test('a Base64-encoded Mcp-Name is decoded before comparing', async () => {
    const encoded = `=?base64?${Buffer.from('echo_say').toString('base64')}?=`;
    const call = await post(rpc(4, 'tools/call', { name: 'echo_say', arguments: { text: 'b' }, _meta: modernMeta() }), {
      'mcp-name': encoded,
    });
    assert.equal(call.status, 200, JSON.stringify(call.body));
    checkResult(call.body, 'CallToolResultResponse');
  });

  const mismatches = [
    ['Mcp-Name differs from params.name', 'tools/call', { 'mcp-name': 'echo_fail' }],
    ['Mcp-Name missing on tools/call', 'tools/call', { 'mcp-name': null }],
    ['Mcp-Method differs from method', 'tools/list', { 'mcp-method': 'server/discover' }],
    ['Mcp-Method missing', 'tools/list', { 'mcp-method': null }],
    ['MCP-Protocol-Version differs from _meta', 'tools/list', { 'mcp-protocol-version': '2025-11-25' }],
    ['MCP-Protocol-Version missing', 'tools/list', { 'mcp-protocol-version': null }],
  ];
  for (const [what, method, headers] of mismatches) {
    test(`${what} → 400 HeaderMismatch -32020`, async () => {
      const params = method === 'tools/call' ? { name: 'echo_say', arguments: { text: 'x' }, _meta: modernMeta() } : { _meta: modernMeta() };
      const { status, body } = await post(rpc(10, method, params), headers);
      assert.equal(status, 400, JSON.stringify(body));
      checkError(body, -32020, 'HeaderMismatchError');
    });
  }

  test('an unsupported version → 400 -32022', async () => {
    const { status, body } = await post(rpc(20, 'tools/list', { _meta: { [META_VERSION]: '2099-01-01', [META_CAPS]: {} } }), {
      'mcp-protocol-version': '2099-01-01',
    });
    assert.equal(status, 400, JSON.stringify(body));
    checkError(body, -32022, 'UnsupportedProtocolVersionError');
    assert.ok(body.error.data.supported.includes(MODERN_VERSION));
  });

  test('missing clientCapabilities → 400 -32602', async () => {
    const { status, body } = await post(rpc(21, 'tools/list', { _meta: { [META_VERSION]: MODERN_VERSION } }));
    assert.equal(status, 400, JSON.stringify(body));
    checkError(body, -32602, 'InvalidParamsError');
  });

  test('the server still serves after the rejections', async () => {
    const { status, body } = await post(rpc(22, 'tools/call', { name: 'echo_say', arguments: { text: 'ok' }, _meta: modernMeta() }));
    assert.equal(status, 200);
    assert.equal(body.result.structuredContent.echo, 'ok');
  });
});
