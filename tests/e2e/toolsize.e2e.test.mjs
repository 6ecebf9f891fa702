// The model-visible size of tools/list: what every request to a model carries before any
// work starts. Measured as the before-stop hook does: Python-style json.dumps (", " and
// ": " separators, non-ASCII escaped) of [{name, description, input_schema}], chars / 4 =
// tokens. The default config (core profile) with every layer whose module is built must
// stay within the goal: at most 25 tools and 4,000 tokens for all five layers; without the
// procedural layer, the other four keep to about 19 tools and 3,100 tokens (asserted: 3,300).

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { KIOKU_BIN, makeSandbox, withTimeout } from './helpers.mjs';

const LAYERS = ['working', 'episodic', 'semantic', 'procedural', 'affective'];
const pluginDir = path.resolve(path.dirname(KIOKU_BIN), '../lib/kioku/plugins');
const built = LAYERS.filter((l) => existsSync(path.join(pluginDir, `kioku-${l}.so`)));

const pyStr = (s) =>
  JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
function pyDumps(v) {
  if (v === undefined || v === null) return 'null';
  if (Array.isArray(v)) return '[' + v.map(pyDumps).join(', ') + ']';
  if (typeof v === 'object') return '{' + Object.entries(v).map(([k, x]) => `${pyStr(k)}: ${pyDumps(x)}`).join(', ') + '}';
  if (typeof v === 'string') return pyStr(v);
  return JSON.stringify(v);
}

/** {tools, tokens, perTool} of a tools/list answer. */
export function toolListCost(tools) {
  const shape = (t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema });
  const perTool = tools.map((t) => [t.name, Math.floor(pyDumps(shape(t)).length / 4)]);
  return { tools: tools.length, tokens: Math.floor(pyDumps(tools.map(shape)).length / 4), perTool };
}

async function listTools(sandbox) {
  const client = new Client({ name: 'kioku-e2e-toolsize', version: '1.0.0' }, { capabilities: {} });
  const env = sandbox.env();
  const transport = new StdioClientTransport({
    command: KIOKU_BIN,
    args: ['--config', sandbox.config, 'serve'],
    env: Object.fromEntries(['KIOKU_HOME', 'HOME', 'PATH', 'LD_LIBRARY_PATH', 'ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS']
      .filter((k) => env[k] !== undefined).map((k) => [k, env[k]])),
    cwd: sandbox.dir,
    stderr: 'pipe',
  });
  await withTimeout(client.connect(transport), 'initialize');
  const { tools } = await withTimeout(client.listTools(), 'tools/list');
  await client.close();
  return tools;
}

describe('tools/list size', { skip: built.length === 0 && 'no layer module built next to kioku' }, () => {
  const sandboxes = [];
  const sandbox = (opts) => {
    const s = makeSandbox(opts);
    sandboxes.push(s);
    return s;
  };
  after(() => sandboxes.forEach((s) => s.cleanup()));

  test(`default (core) profile of ${built.join(', ')} fits the goal`, async () => {
    const cost = toolListCost(await listTools(sandbox({ enabled: built })));
    const full = toolListCost(await listTools(sandbox({ enabled: built, profile: 'full' })));
    console.log(`tools/list core: ${cost.tools} tools, ${cost.tokens} tokens; full: ${full.tools} tools, ` +
      `${full.tokens} tokens\n  ${cost.perTool.map(([n, t]) => `${n} ${t}`).join(', ')}`);
    assert.ok(cost.tools <= 25, `core lists ${cost.tools} tools (goal: at most 25)`);
    assert.ok(cost.tokens <= 4000, `core costs ${cost.tokens} tokens (goal: at most 4,000)`);
    if (!built.includes('procedural') && built.length === 4) {
      // Room for the procedural layer's ~6 core tools within the goal.
      assert.ok(cost.tools <= 19, `four layers list ${cost.tools} core tools (budget 19, procedural adds ~6)`);
      assert.ok(cost.tokens <= 3300, `four layers cost ${cost.tokens} tokens (about 3,100 leaves procedural ~900)`);
    }
    assert.ok(full.tools > cost.tools, 'the full profile lists more tools than core');
  });

  test('every tool declares its arguments and its result', async () => {
    // A schema the SDK's ToolSpec::schemas hook never filled stays {"type": "object"}:
    // smaller, so the size goal above would not notice, and it accepts any arguments.
    for (const t of await listTools(sandbox({ enabled: built, profile: 'full' }))) {
      assert.equal(typeof t.inputSchema.properties, 'object', `${t.name}: inputSchema without properties`);
      assert.equal(t.inputSchema.additionalProperties, false, `${t.name}: inputSchema open to unknown arguments`);
      assert.equal(typeof t.outputSchema, 'object', `${t.name}: no outputSchema`);
    }
  });
});
