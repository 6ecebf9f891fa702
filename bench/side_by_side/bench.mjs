#!/usr/bin/env node
// kioku against the reference MCP memory server, side by side in one run (issue 15):
// for each size, each server gets a fresh home, the same items and the same queries over
// stdio through the official MCP TypeScript SDK client; prints the table and the ratios.
// Usage: see bench/README.md, or `node bench.mjs --help`.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { kiokuServer, referenceServer } from './servers.mjs';
import { runOne } from './run_one.mjs';
import { printReport } from './report.mjs';
import { aggregate, trialOrder } from './trials.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');

const HELP = `node bench.mjs [options]
  --sizes LIST        item counts, comma-separated (default 1000,10000,100000)
  --servers LIST      kioku,ref (default both)
  --kioku PATH        kioku binary (default $KIOKU_BIN, else <repo>/build/ci/bin/kioku)
  --plugin-dir DIR    plugin directory (default <kioku>/../../lib/kioku/plugins when it exists)
  --kioku-config F    kioku.yaml for serve and call (default: the embedded default config)
  --trials N          runs of each size, the servers alternating which goes first; figures are
                      medians over the trials and each trial's ratios are listed (default 1)
  --rounds N          timed rounds of the 50 queries (default 3)
  --warmup N          untimed queries before the rounds (default 5)
  --cold-runs N       cold \`kioku call memory_recall\` runs per size; the median is shown (default 7)
  --budget-s S        wall-clock bound per server and size (default 900)
  --call-timeout-s S  bound per tool call (default 120)
  --json FILE         also write every figure as JSON
  --keep              keep the temp directories (their paths go to stderr)`;

function options() {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000,10000,100000' },
      servers: { type: 'string', default: 'kioku,ref' },
      kioku: { type: 'string', default: process.env.KIOKU_BIN || path.join(repo, 'build/ci/bin/kioku') },
      'plugin-dir': { type: 'string' },
      'kioku-config': { type: 'string' },
      trials: { type: 'string', default: '1' },
      rounds: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '5' },
      'cold-runs': { type: 'string', default: '7' },
      'budget-s': { type: 'string', default: '900' },
      'call-timeout-s': { type: 'string', default: '120' },
      json: { type: 'string' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const int = (name, min) => {
    const v = Number(values[name]);
    if (!Number.isInteger(v) || v < min) throw new Error(`--${name} must be an integer >= ${min}, got '${values[name]}'`);
    return v;
  };
  const sizes = values.sizes.split(',').map((s) => Number(s.replace(/_/g, '')));
  if (sizes.some((s) => !Number.isInteger(s) || s < 1)) throw new Error(`--sizes must be positive integers, got '${values.sizes}'`);
  const servers = values.servers.split(',');
  for (const s of servers) if (!['kioku', 'ref'].includes(s)) throw new Error(`--servers: unknown '${s}' (send kioku, ref)`);
  const kioku = path.resolve(values.kioku);
  let pluginDir = values['plugin-dir'];
  if (!pluginDir) {
    const guess = path.resolve(path.dirname(kioku), '../lib/kioku/plugins');
    if (existsSync(guess)) pluginDir = guess;
  }
  if (servers.includes('kioku') && !existsSync(kioku)) throw new Error(`kioku binary ${kioku} not found (--kioku PATH or $KIOKU_BIN)`);
  return {
    sizes,
    servers,
    kioku,
    pluginDir: pluginDir && path.resolve(pluginDir),
    config: values['kioku-config'] && path.resolve(values['kioku-config']),
    json: values.json,
    keep: values.keep,
    trials: int('trials', 1),
    run: {
      rounds: int('rounds', 1),
      warmup: int('warmup', 0),
      coldRuns: int('cold-runs', 0),
      budgetMs: int('budget-s', 1) * 1000,
      callTimeoutMs: int('call-timeout-s', 1) * 1000,
    },
  };
}

function kiokuVersion(opt) {
  const r = spawnSync(opt.kioku, ['version'], { encoding: 'utf8' });
  return (r.stdout || r.stderr || '').trim().split('\n')[0];
}

async function main() {
  const opt = options();
  const servers = {
    kioku: kiokuServer({ bin: opt.kioku, pluginDir: opt.pluginDir, config: opt.config }),
    ref: referenceServer(),
  };
  const machine = {
    started: new Date().toISOString(),
    cpus: os.cpus().length,
    node: process.version,
    kioku: opt.servers.includes('kioku') ? `${kiokuVersion(opt)} (${opt.kioku})` : '',
    loadBefore: os.loadavg(),
  };
  process.stderr.write(`load average ${machine.loadBefore.map((l) => l.toFixed(2)).join(' ')}; ${machine.cpus} CPUs\n`);
  const results = [];
  for (const size of opt.sizes) {
    for (let trial = 0; trial < opt.trials; ++trial) {
      for (const name of trialOrder(opt.servers, trial)) {
        const dir = mkdtempSync(path.join(os.tmpdir(), `kioku-bench-${name}-${size}-`));
        const load = os.loadavg()[0];
        try {
          const r = await runOne(servers[name], size, dir, opt.run);
          results.push({ ...r, trial, load1: load });
        } catch (e) {
          process.stderr.write(`${e.stack || e}\n`);
          results.push({ ...e.partial, server: name, size, trial, error: String(e.message || e).slice(0, 300), load1: load });
        } finally {
          if (opt.keep) process.stderr.write(`kept ${dir}\n`);
          else rmSync(dir, { recursive: true, force: true });
        }
      }
    }
  }
  machine.loadAfter = os.loadavg();
  machine.trials = opt.trials;
  printReport(aggregate(results), opt.sizes, machine, results);
  if (opt.json) writeFileSync(opt.json, JSON.stringify({ machine, results }, null, 2) + '\n');
  if (results.some((r) => r.error)) process.exitCode = 1;
}

main().catch((e) => {
  process.stderr.write(`${e.message || e}\n`);
  process.exit(2);
});
