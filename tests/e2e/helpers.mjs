// Shared helpers for the kioku end-to-end tests: where the binary and fixture plugins are,
// hermetic per-test homes and configs, the official SDK client over stdio, a raw
// newline-delimited JSON-RPC client over the stdio pipe, a way to start `kioku serve --http`
// on a free port, and a fake OpenAI-compatible provider endpoint.
//
// Nothing here sleeps to synchronize: every wait is for an event (a response line, a
// process exit, a log line) and carries a generous timeout only as a safety net, so a
// hung server fails the test instead of hanging CI.

import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Safety-net timeout for any single wait (never an assertion of speed). */
export const SAFETY_MS = 20_000;

/** The kioku binary under test: $KIOKU_BIN, else the CI's release build. */
export const KIOKU_BIN = path.resolve(process.env.KIOKU_BIN || path.join(here, '../../build/release/bin/kioku'));

/** Directory holding kioku-fixture.so: $KIOKU_FIXTURE_PLUGIN_DIR, else <build>/fixtures/plugins. */
export const FIXTURE_PLUGIN_DIR = path.resolve(
  process.env.KIOKU_FIXTURE_PLUGIN_DIR || path.join(path.dirname(path.dirname(KIOKU_BIN)), 'fixtures/plugins'),
);

/**
 * The official MCP JSON Schemas the answers are checked against: copies of
 * shared/reference/mcp-schema-*.json kept in tests/e2e/schemas so a fresh clone is
 * self-contained; $KIOKU_MCP_SCHEMA_DIR points elsewhere.
 */
export const SCHEMA_DIR = path.resolve(process.env.KIOKU_MCP_SCHEMA_DIR || path.join(here, 'schemas'));
export const MODERN_SCHEMA_PATH = path.join(SCHEMA_DIR, 'mcp-schema-2026-07-28.json');
export const LEGACY_SCHEMA_PATH = path.join(SCHEMA_DIR, 'mcp-schema-2025-11-25.json');

export const MODERN_VERSION = '2026-07-28';
export const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT = 'io.modelcontextprotocol/clientInfo';

/** The fixture plugin's tools (tests/fixtures/plugins/good.cpp). */
export const FIXTURE_TOOLS = ['echo_bytes', 'echo_fail', 'echo_say', 'echo_wait'];

/** Throws with a clear message when the binary or fixture plugin is missing. */
export function checkPrerequisites() {
  const missing = [];
  if (!existsSync(KIOKU_BIN)) missing.push(`kioku binary ${KIOKU_BIN} (set KIOKU_BIN)`);
  if (!existsSync(path.join(FIXTURE_PLUGIN_DIR, 'kioku-fixture.so'))) {
    missing.push(`fixture plugin ${FIXTURE_PLUGIN_DIR}/kioku-fixture.so (set KIOKU_FIXTURE_PLUGIN_DIR)`);
  }
  if (missing.length) throw new Error(`e2e prerequisites missing: ${missing.join('; ')}`);
}

/**
 * A fresh temp directory with `home/` (KIOKU_HOME) and `kioku.yaml` enabling `enabled`;
 * `profile` sets server.tools.profile (core | full; default: the config's default, core).
 * Returns {dir, home, config, env(extra), cleanup()}.
 */
export function makeSandbox({ enabled = ['fixture'], extraYaml = '', profile = '' } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kioku-e2e-'));
  const home = path.join(dir, 'home');
  const config = path.join(dir, 'kioku.yaml');
  writeFileSync(
    config,
    [
      '# written by tests/e2e',
      `home: ${JSON.stringify(home)}`,
      'log_level: info',
      'plugins:',
      `  enabled: [${enabled.join(', ')}]`,
      profile ? `server:\n  tools:\n    profile: ${profile}` : '',
      extraYaml,
      '',
    ].join('\n'),
  );
  return {
    dir,
    home,
    config,
    /** The child environment: ours without any KIOKU_* variable, plus KIOKU_HOME and `extra`. */
    env(extra = {}) {
      const env = {};
      for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('KIOKU_')) env[k] = v;
      return { ...env, KIOKU_HOME: home, ...extra };
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Arguments for `kioku serve` with the sandbox's config and the fixture plugin dir. */
export function serveArgs(sandbox, ...more) {
  return ['--config', sandbox.config, '--plugin-dir', FIXTURE_PLUGIN_DIR, 'serve', ...more];
}

/** `env` reduced to what a kioku child needs (sandbox paths, agent id, sanitizer options, PATH). */
export function keepEnv(env) {
  const keep = ['KIOKU_HOME', 'KIOKU_AGENT_ID', 'ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'LD_LIBRARY_PATH', 'HOME', 'PATH'];
  return Object.fromEntries(keep.filter((k) => env[k] !== undefined).map((k) => [k, env[k]]));
}

/**
 * Runs `kioku --config <sandbox config> ...args` to its exit, in `cwd` (default: the sandbox
 * folder) with `env` (default: the sandbox's) and `input` on stdin (default: none).
 * Resolves {code, stdout, stderr}.
 */
export function runCli(sandbox, args, { env = sandbox.env(), cwd = sandbox.dir, input = '' } = {}) {
  return withTimeout(
    new Promise((resolve, reject) => {
      const child = spawn(KIOKU_BIN, ['--config', sandbox.config, ...args], { env, cwd });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      // A command that exits before reading stdin (a usage error) closes the pipe first:
      // EPIPE then says nothing about kioku, and the exit code and stderr still do.
      child.stdin.on('error', (e) => e.code !== 'EPIPE' && reject(e));
      child.stdin.end(input);
    }),
    `kioku ${args.join(' ')}`,
  );
}

/**
 * A stdout for a child whose reader is already gone: the write end of a FIFO (in `dir`) whose
 * only read end was opened and closed before the child starts, so the child's first write
 * fails with EPIPE every time. (Destroying the parent's end of a pipe after spawning races
 * the child's write: on a loaded machine the write won.) Pass `fd` in `stdio`, then call
 * `close()` once the child is spawned.
 */
export function stdoutWithoutReader(dir) {
  const fifo = path.join(dir, `no-reader-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const made = spawnSync('mkfifo', [fifo], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`mkfifo ${fifo}: ${made.stderr || made.error}`);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const fd = openSync(fifo, constants.O_WRONLY);
  closeSync(reader);
  return { fd, close: () => { closeSync(fd); rmSync(fifo, { force: true }); } };
}

/** Rejects after `ms` with `what` in the message; `promise` wins if it settles first. */
export function withTimeout(promise, what, ms = SAFETY_MS) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Starts `kioku serve` (stdio) for `sandbox` and connects the official MCP SDK client as
 * agent `agent` (KIOKU_AGENT_ID) from `cwd` (default: the sandbox folder), with `env` added
 * to the sandbox's. `capabilities` and `setup(client)` (called before connecting, e.g. to
 * answer roots/list) shape the client. Lists the tools once (the SDK caches their output
 * schemas). Resolves {client, tools, stderr()}; a failed initialize rejects with kioku's
 * stderr in the message.
 */
export async function connectSdkClient(sandbox, { agent = 'e2e-agent', name = `kioku-e2e-${agent}`, env = {},
  cwd = sandbox.dir, capabilities = {}, setup } = {}) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  setup?.(client);
  const transport = new StdioClientTransport({
    command: KIOKU_BIN,
    args: ['--config', sandbox.config, 'serve'],
    env: keepEnv(sandbox.env({ KIOKU_AGENT_ID: agent, ...env })),
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  try {
    await withTimeout(client.connect(transport), `initialize over stdio (agent ${agent}, in ${cwd})`);
  } catch (e) {
    throw new Error(`${e.message}; stderr:\n${stderr}`);
  }
  const { tools } = await withTimeout(client.listTools(), 'tools/list');
  return { client, tools, stderr: () => stderr };
}

/** tools/call through the SDK client, under the safety timeout. */
export const callTool = (client, name, args = {}) =>
  withTimeout(client.callTool({ name, arguments: args }), `tools/call ${name}`);

/** The text blocks of a tools/call result, joined by newlines. */
export const textOf = (r) => (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

/**
 * A fake OpenAI-compatible provider on 127.0.0.1:0 (node:http). POST …/chat/completions
 * answers with `chat(request)` as the message content; POST …/embeddings with one
 * `embed(text)` vector per input. `state.requests` counts requests. Resolves {state, url,
 * close()}.
 */
export async function startFakeOpenAi({ chat = () => '{}', embed = () => [1] } = {}) {
  const state = { requests: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      state.requests += 1;
      const request = JSON.parse(body);
      let answer;
      if (req.url.endsWith('/embeddings')) {
        const inputs = Array.isArray(request.input) ? request.input : [request.input];
        answer = { object: 'list', model: request.model, data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: embed(t) })) };
      } else {
        answer = { choices: [{ index: 0, message: { role: 'assistant', content: chat(request) } }] };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { state, url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/**
 * A `kioku serve` child spoken to with raw newline-delimited JSON-RPC over its stdio.
 * Every stdout line is kept (as a Buffer and parsed), so tests can assert both on the
 * answers and on the absence of unexpected ones.
 */
export class RawStdioServer {
  constructor(sandbox, { args = serveArgs(sandbox), env = sandbox.env(), stdin = 'pipe', cwd = undefined } = {}) {
    this.child = spawn(KIOKU_BIN, args, { env, cwd, stdio: [stdin, 'pipe', 'pipe'] });
    this.lines = []; // {raw: Buffer, msg: object|undefined}
    this.stderr = '';
    this._waiters = [];
    this._pending = Buffer.alloc(0);
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => resolve({ code, signal }));
    });
    this.closed = once(this.child, 'close');
    // Once stdout is closed nothing more can arrive: fail the waits still open at once.
    this.closed.then(([code, signal]) => {
      this._ended = `kioku exited (code ${code}, signal ${signal})`;
      for (const w of this._waiters.splice(0)) w.reject(new Error(`${this._ended} before ${w.what}; stderr:\n${this.stderr}`));
    });
    this.child.stderr.setEncoding('utf8');
    this._stderrWaiters = [];
    this.child.stderr.on('data', (d) => {
      this.stderr += d;
      for (const w of [...this._stderrWaiters]) {
        if (w.pattern.test(this.stderr)) {
          this._stderrWaiters.splice(this._stderrWaiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
    this.child.stdout.on('data', (chunk) => this._onData(chunk));
    if (this.child.stdin) this.child.stdin.on('error', () => {}); // EPIPE after exit is fine
  }

  _onData(chunk) {
    this._pending = Buffer.concat([this._pending, chunk]);
    let nl;
    while ((nl = this._pending.indexOf(0x0a)) >= 0) {
      const raw = this._pending.subarray(0, nl);
      this._pending = this._pending.subarray(nl + 1);
      let msg;
      try {
        msg = JSON.parse(raw.toString('utf8'));
      } catch {
        msg = undefined; // kept; tests assert every line parses
      }
      this.lines.push({ raw, msg });
      this._wake();
    }
  }

  _wake() {
    for (const w of [...this._waiters]) {
      const found = this.lines.find((l, i) => i >= w.from && l.msg !== undefined && w.match(l.msg));
      if (found) {
        this._waiters.splice(this._waiters.indexOf(w), 1);
        w.resolve(found.msg);
      }
    }
  }

  /**
   * The legacy-era (2025-11-25) handshake as client `name`: initialize, then
   * notifications/initialized. Resolves with the initialize response.
   */
  async initializeLegacy(name = 'raw') {
    const init = await this.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name, version: '1' },
    });
    await this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return init;
  }

  /** Resolves once kioku's log (stderr) matches `pattern`. */
  waitForLog(pattern, what = `a log line matching ${pattern}`) {
    return withTimeout(
      new Promise((resolve) => {
        if (pattern.test(this.stderr)) resolve();
        else this._stderrWaiters.push({ pattern, resolve });
      }),
      what,
    );
  }

  /** Writes `data` (object → one JSON line; string/Buffer → as is). */
  write(data) {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(typeof data === 'string' ? data : JSON.stringify(data) + '\n');
    return new Promise((resolve, reject) => this.child.stdin.write(bytes, (err) => (err ? reject(err) : resolve())));
  }

  /** Resolves with the first stdout message (at line index >= from) that `match` accepts. */
  waitFor(match, what = 'a matching message', from = 0) {
    return withTimeout(
      new Promise((resolve, reject) => {
        const w = { match, resolve, reject, from, what };
        this._waiters.push(w);
        this._wake();
        if (this._ended && this._waiters.includes(w)) {
          this._waiters.splice(this._waiters.indexOf(w), 1);
          reject(new Error(`${this._ended} before ${what}; stderr:\n${this.stderr}`));
        }
      }),
      `${what}; stderr so far:\n${this.stderr}`,
    );
  }

  /** Sends a request and resolves with the response carrying its id. */
  async request(method, params, id = `r${++RawStdioServer._next}`) {
    const message = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    const answer = this.waitFor((m) => m.id === id && ('result' in m || 'error' in m), `response to ${method} id ${id}`);
    await this._send(message, answer);
    return answer;
  }

  /**
   * Sends `data` and resolves with the next error whose id is null (parse error or invalid
   * request whose id could not be read: JSON-RPC 2.0 section 5 makes it "id": null, as the
   * official MCP SDK servers send it).
   */
  async sendExpectingNullId(data, what) {
    const from = this.lines.length;
    const answer = this.waitFor((m) => m.id === null && 'error' in m, `an answer with "id": null to ${what}`, from);
    await this._send(data, answer);
    return answer;
  }

  // Writes `data`; if the write fails (the process is gone), reports why through `answer`,
  // whose rejection names the exit status and stderr.
  async _send(data, answer) {
    answer.catch(() => {});
    try {
      await this.write(data);
    } catch (e) {
      await answer;
      throw e;
    }
  }

  /** Closes stdin and resolves with {code, signal} once the process has exited. */
  async endAndWait() {
    if (this.child.stdin && !this.child.stdin.destroyed) this.child.stdin.end();
    return this.waitExit();
  }

  /** Resolves with {code, signal} once the process has exited and its stdout is drained. */
  async waitExit() {
    const status = await withTimeout(this.exited, `kioku to exit; stderr:\n${this.stderr}`);
    await withTimeout(this.closed, 'kioku stdio to close');
    return status;
  }

  /** Last resort for a test that failed mid-way: no orphan processes. */
  kill() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
RawStdioServer._next = 0;

/** Modern-era `_meta` for a request. */
export function modernMeta(extra = {}) {
  return { [META_VERSION]: MODERN_VERSION, [META_CAPS]: {}, ...extra };
}

/**
 * Starts `kioku serve --http 127.0.0.1:0` and resolves once it accepts connections.
 * Readiness and the port come from the server's own stderr line, logged after bind(),
 * "serving MCP over HTTP on 127.0.0.1:PORT/mcp" (no polling, no port race). The returned
 * object has {url, base, port, child, exited, stderr(), stop()}; stop() sends SIGTERM and
 * resolves with {code, signal}. Resolves with {unsupported: message} when the binary says
 * HTTP is not built in.
 */
export async function startHttpServer(sandbox, { env = sandbox.env() } = {}) {
  const child = spawn(KIOKU_BIN, serveArgs(sandbox, '--http', '127.0.0.1:0'), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /serving MCP over HTTP on 127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m && Number(m[1]) > 0) resolve(Number(m[1]));
    });
  });
  const first = await withTimeout(Promise.race([ready, exited]), `kioku serve --http 127.0.0.1:0 to start`);
  if (typeof first !== 'number') {
    if (/not built|not supported|unsupported/i.test(stderr)) return { unsupported: stderr.trim() };
    throw new Error(`kioku serve --http exited early (${JSON.stringify(first)}); stderr:\n${stderr}`);
  }
  const port = first;
  const base = `http://127.0.0.1:${port}`;
  return {
    url: new URL(`${base}/mcp`),
    base,
    port,
    child,
    exited,
    stderr: () => stderr,
    stdout: () => stdout,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return withTimeout(exited, `kioku serve --http to exit on SIGTERM; stderr:\n${stderr}`);
    },
  };
}

/** Probes once whether the binary under test has the HTTP transport (null if it does). */
let httpProbe;
export function httpUnsupportedReason() {
  httpProbe ??= (async () => {
    const sandbox = makeSandbox();
    try {
      const server = await startHttpServer(sandbox);
      if (server.unsupported) return server.unsupported;
      await server.stop();
      return null;
    } finally {
      sandbox.cleanup();
    }
  })();
  return httpProbe;
}

/**
 * Ajv (JSON Schema 2020-12, the dialect of the MCP schemas) loaded with one MCP schema;
 * `check(defName, value)` throws unless `value` conforms to `#/$defs/<defName>`.
 */
export async function loadSchema(file) {
  const { readFileSync } = await import('node:fs');
  const { default: Ajv2020 } = await import('ajv/dist/2020.js');
  const { default: addFormats } = await import('ajv-formats');
  const schema = JSON.parse(readFileSync(file, 'utf8'));
  if (schema.$schema !== 'https://json-schema.org/draft/2020-12/schema') {
    throw new Error(`${file}: expected a JSON Schema 2020-12 document, got ${schema.$schema}`);
  }
  const id = `urn:kioku-e2e:${path.basename(file)}`;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...schema, $id: id });
  const validators = new Map();
  return {
    ajv,
    defs: schema.$defs,
    check(defName, value) {
      if (!(defName in schema.$defs)) throw new Error(`no $defs/${defName} in ${file}`);
      let validate = validators.get(defName);
      if (!validate) {
        validate = ajv.getSchema(`${id}#/$defs/${defName}`);
        validators.set(defName, validate);
      }
      if (!validate(value)) {
        throw new Error(
          `not a valid ${defName} (${path.basename(file)}): ${ajv.errorsText(validate.errors, { separator: '; ' })}\n` +
            JSON.stringify(value).slice(0, 2000),
        );
      }
    },
  };
}

/** The 2026-07-28 schema (see loadSchema). */
export const loadModernSchema = () => loadSchema(MODERN_SCHEMA_PATH);
/** The 2025-11-25 schema (see loadSchema). */
export const loadLegacySchema = () => loadSchema(LEGACY_SCHEMA_PATH);
