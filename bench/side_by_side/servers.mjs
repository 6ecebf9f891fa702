// The two servers under test, behind one shape: how to start each over stdio with a fresh
// home, how the workload's writes and searches map onto its tools, how to tell a right
// answer, and where its data lives on disk.

import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** The child environment: ours without KIOKU_* / MEMORY_FILE_PATH, plus `extra`. */
function cleanEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('KIOKU_') && k !== 'MEMORY_FILE_PATH') env[k] = v;
  }
  return { ...env, ...extra };
}

function fileBytes(file) {
  return existsSync(file) ? statSync(file).size : 0;
}

/**
 * kioku: `kioku [--config F] [--plugin-dir D] serve` with KIOKU_HOME=<dir>/home and the
 * working directory <dir> (so `kioku call` later resolves the same project). Writes are
 * memory_remember's batch form {memories: [{text, kind}]}, searches memory_recall {query}.
 */
export function kiokuServer({ bin, pluginDir, config }) {
  const globalArgs = [...(config ? ['--config', config] : []), ...(pluginDir ? ['--plugin-dir', pluginDir] : [])];
  const home = (dir) => path.join(dir, 'home');
  const env = (dir) => cleanEnv({ KIOKU_HOME: home(dir) });
  const db = (dir) => path.join(home(dir), 'kioku.db');
  return {
    name: 'kioku',
    launch: (dir) => ({ command: bin, args: [...globalArgs, 'serve'], env: env(dir), cwd: dir }),
    writeCall: (batch) => ({
      name: 'memory_remember',
      arguments: { memories: batch.map((it) => ({ text: it.text, kind: 'fact' })) },
    }),
    /** Number of items the answer says were newly stored (action "remembered"). */
    stored: (result) => (result.structuredContent?.results ?? []).filter((r) => r.action === 'remembered').length,
    searchCall: (query) => ({ name: 'memory_recall', arguments: { query } }),
    /** Right answer: the best-ranked memory is the item the query names. */
    hit: (result, expect) => result.structuredContent?.memories?.[0]?.text === expect.text,
    /** Found at all: the item is among the memories returned (default limit). */
    found: (result, expect) => (result.structuredContent?.memories ?? []).some((m) => m.text === expect.text),
    dataFile: db,
    /**
     * Bytes of the database after a checkpoint: the server has exited, so a WAL left behind
     * is folded in with sqlite3's `PRAGMA wal_checkpoint(TRUNCATE)` when the CLI exists.
     */
    storageBytes(dir) {
      const file = db(dir);
      if (fileBytes(`${file}-wal`) > 0) {
        spawnSync('sqlite3', [file, 'PRAGMA wal_checkpoint(TRUNCATE);'], { stdio: 'ignore' });
      }
      return { bytes: fileBytes(file), walBytes: fileBytes(`${file}-wal`) };
    },
    /** Where the database's bytes are: [name, bytes] per table/index (sqlite3 dbstat). */
    storageBreakdown(dir) {
      const r = spawnSync(
        'sqlite3',
        ['-readonly', '-separator', '\t', db(dir), 'SELECT name, SUM(pgsize) AS b FROM dbstat GROUP BY name ORDER BY b DESC LIMIT 12;'],
        { encoding: 'utf8' },
      );
      if (r.status !== 0) return [];
      return r.stdout.trim().split('\n').filter(Boolean).map((l) => {
        const [n, b] = l.split('\t');
        return [n, Number(b)];
      });
    },
    /** One cold `kioku call memory_recall` (a new process per call): wall ms and whether it found `expect`. */
    coldCall(dir, query, expect) {
      const start = process.hrtime.bigint();
      const r = spawnSync(bin, [...globalArgs, 'call', 'memory_recall', JSON.stringify({ query })], {
        env: env(dir),
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
      });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (r.status !== 0) {
        throw new Error(`kioku call memory_recall exited ${r.status ?? r.signal}: ${(r.stderr || r.stdout).slice(0, 500)}`);
      }
      return { ms, hit: r.stdout.includes(expect.text) };
    },
    /** What spawning any process costs here, measured as coldCall measures: `/bin/true`'s wall ms. */
    spawnFloor(dir) {
      const start = process.hrtime.bigint();
      const r = spawnSync('/bin/true', [], { env: env(dir), cwd: dir, encoding: 'utf8', timeout: 60_000 });
      if (r.status !== 0) throw new Error(`/bin/true exited ${r.status ?? r.signal}`);
      return Number(process.hrtime.bigint() - start) / 1e6;
    },
  };
}

/**
 * The reference server @modelcontextprotocol/server-memory (pinned in package-lock.json),
 * run as `node <its dist/index.js>` with MEMORY_FILE_PATH=<dir>/memory.jsonl. Writes are
 * create_entities (one entity per item: name <w>_<n>, type "module", the text as its
 * observation), searches search_nodes {query}.
 */
export function referenceServer() {
  const entry = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');
  const file = (dir) => path.join(dir, 'memory.jsonl');
  return {
    name: 'ref',
    launch: (dir) => ({ command: process.execPath, args: [entry], env: cleanEnv({ MEMORY_FILE_PATH: file(dir) }), cwd: dir }),
    writeCall: (batch) => ({
      name: 'create_entities',
      arguments: { entities: batch.map((it) => ({ name: it.name, entityType: 'module', observations: [it.text] })) },
    }),
    stored: (result) => (result.structuredContent?.entities ?? []).length,
    searchCall: (query) => ({ name: 'search_nodes', arguments: { query } }),
    /** Right answer: exactly the entity the query names (substring match has no ranking). */
    hit: (result, expect) => {
      const names = (result.structuredContent?.entities ?? []).map((e) => e.name);
      return names.length === 1 && names[0] === expect.name;
    },
    found: (result, expect) => (result.structuredContent?.entities ?? []).some((e) => e.name === expect.name),
    dataFile: file,
    storageBytes: (dir) => ({ bytes: fileBytes(file(dir)), walBytes: 0 }),
    storageBreakdown: () => [],
    coldCall: null,
  };
}
