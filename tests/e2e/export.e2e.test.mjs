// The data_export tool through the official MCP client: listed in the full profile only,
// writes a new 0600 file under the data folder that `kioku import` reads back (a second
// import adds nothing), never replaces a file; over HTTP a token limited to some projects
// is refused (403) and an unlimited one may export.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, test } from 'node:test';

import {
  KIOKU_BIN, META_CAPS, META_VERSION, MODERN_VERSION, connectSdkClient, makeSandbox, runCli, startHttpServer, withTimeout,
} from './helpers.mjs';

if (!existsSync(KIOKU_BIN)) throw new Error(`e2e prerequisites missing: kioku binary ${KIOKU_BIN} (set KIOKU_BIN)`);

const connect = async (sandbox) => (await connectSdkClient(sandbox)).client;

describe('data_export', () => {
  const sandboxes = [];
  let server;
  const sandbox = (opts) => {
    const s = makeSandbox(opts);
    sandboxes.push(s);
    return s;
  };
  afterEach(async () => {
    await server?.stop?.();
    server = undefined;
    sandboxes.splice(0).forEach((s) => s.cleanup());
  });

  test('full profile only; the file imports back with kioku import', async () => {
    const core = await connect(sandbox({ enabled: ['semantic', 'affective'] }));
    const coreNames = (await withTimeout(core.listTools(), 'tools/list')).tools.map((t) => t.name);
    await core.close();
    assert.ok(!coreNames.includes('data_export'), 'data_export stays out of the core tools/list');

    const a = sandbox({ enabled: ['semantic', 'affective'], profile: 'full' });
    const client = await connect(a);
    try {
      const { tools } = await withTimeout(client.listTools(), 'tools/list');
      assert.ok(tools.some((t) => t.name === 'data_export'));
      for (const text of ['We deploy from the release branch', 'Staging resets on Sundays']) {
        const r = await withTimeout(client.callTool({ name: 'memory_remember', arguments: { text, kind: 'fact' } }), 'remember');
        assert.equal(r.isError, false, JSON.stringify(r));
      }
      const r = await withTimeout(client.callTool({ name: 'data_export', arguments: {} }), 'data_export');
      assert.equal(r.isError, false, JSON.stringify(r));
      const { path: file, bytes, rows } = r.structuredContent;
      assert.equal(path.dirname(file), path.join(a.home, 'exports'));
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(file).size, bytes);
      assert.ok(rows.semantic >= 2, JSON.stringify(rows));
      assert.equal(JSON.parse(readFileSync(file, 'utf8')).sections.semantic.tables.semantic_memories.rows.length, 2);
      console.log(`data_export result: ${JSON.stringify(r).length} bytes for a ${bytes}-byte export`);

      const again = await withTimeout(client.callTool({ name: 'data_export', arguments: { format: 'md' } }), 'data_export md');
      assert.notEqual(again.structuredContent.path, file);
      assert.match(readFileSync(again.structuredContent.path, 'utf8'), /We deploy from the release branch/);
      assert.ok(existsSync(file), 'the first export is still there');

      const b = sandbox({ enabled: ['semantic', 'affective'], profile: 'full' });
      const imported = await runCli(b, ['import', file]);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /semantic [1-9]\d* new/);
      const twice = await runCli(b, ['import', file]);
      assert.equal(twice.code, 0, twice.stderr);
      assert.match(twice.stdout, /nothing new/);
    } finally {
      await client.close();
    }
  });

  test('over HTTP: a token limited to some projects is refused; an unlimited one exports', async (t) => {
    const s = sandbox({ enabled: ['semantic'], profile: 'full' });
    const limited = 'limited-token-0123456789abcdef';
    const admin = 'admin-token-0123456789abcdef';
    writeFileSync(s.config, [
      `home: ${JSON.stringify(s.home)}`,
      'plugins:',
      '  enabled: [semantic]',
      'server:',
      '  tools:',
      '    profile: full',
      '  http:',
      '    tokens:',
      `      - {token: "${limited}", agent_id: ci-bot, projects: [${JSON.stringify(s.dir)}]}`,
      `      - {token: "${admin}", agent_id: admin}`,
      '',
    ].join('\n'));
    server = await startHttpServer(s);
    if (server.unsupported) return t.skip(server.unsupported);
    const call = (token) => fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': 'tools/call',
        'mcp-name': 'data_export',
      },
      body: JSON.stringify({
        jsonrpc: '2.0', id: 1, method: 'tools/call',
        params: { name: 'data_export', arguments: {}, _meta: { [META_VERSION]: MODERN_VERSION, [META_CAPS]: {} } },
      }),
    });
    const refused = await call(limited);
    assert.equal(refused.status, 403);
    assert.match((await refused.json()).error.message, /data_export reads every project's data.*ci-bot/);
    assert.ok(!existsSync(path.join(s.home, 'exports')), 'nothing was written');

    const ok = await call(admin);
    assert.equal(ok.status, 200);
    const body = await ok.json();
    assert.equal(body.result.isError, false, JSON.stringify(body));
    assert.ok(existsSync(body.result.structuredContent.path));
  });
});
