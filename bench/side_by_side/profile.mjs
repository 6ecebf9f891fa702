// A load for a profiler: one kioku server over stdio on a home that is kept, the workload's
// writes (unless the home already holds them) and then search rounds, so `perf record -p`
// or `perf record -g -- node profile.mjs …` sees one phase at a time.
//
//   node profile.mjs --home /tmp/k100k --size 100000 --phase write
//   node profile.mjs --home /tmp/k100k --size 100000 --phase search --rounds 20
//   node profile.mjs --home /tmp/k100k --size 101000 --from 100000 --phase write   (items 100,000..100,999 only)
//
// Prints the phase's wall time and, for searches, the p50 round trip, and the server's pid
// on stderr before the phase starts (KIOKU_PROFILE_WAIT_MS gives time to attach).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { batches, queries } from './workload.mjs';
import { median, nowMs } from './stats.mjs';

const { values: o } = parseArgs({
  options: {
    home: { type: 'string' },
    size: { type: 'string', default: '10000' },
    phase: { type: 'string', default: 'search' },
    rounds: { type: 'string', default: '10' },
    from: { type: 'string', default: '0' },
    tool: { type: 'string', default: 'memory_recall' },
    kioku: { type: 'string', default: process.env.KIOKU_BIN ?? path.resolve('../../build/ci/bin/kioku') },
  },
});
if (!o.home) throw new Error('--home DIR is required');
const size = Number(o.size);
const env = { ...process.env, KIOKU_HOME: path.join(o.home, 'home') };
const transport = new StdioClientTransport({ command: o.kioku, args: ['serve'], env, cwd: o.home, stderr: 'inherit' });
const client = new Client({ name: 'kioku-profile', version: '0.0.0' });
await client.connect(transport);
process.stderr.write(`server pid ${transport.pid}\n`);
await sleep(Number(process.env.KIOKU_PROFILE_WAIT_MS ?? 0));
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(JSON.stringify(r.content).slice(0, 300));
  return r;
};
const t0 = nowMs();
if (o.phase === 'write') {
  const from = Number(o.from);
  for (const b of batches(size, from)) await call('memory_remember', { memories: b.map((it) => ({ text: it.text, kind: 'fact' })) });
  const n = size - from;
  process.stderr.write(`write ${n}: ${(nowMs() - t0).toFixed(0)} ms, ${((n / (nowMs() - t0)) * 1000).toFixed(0)}/s\n`);
} else {
  const ms = [];
  for (let r = 0; r < Number(o.rounds); ++r) {
    for (const q of queries(size)) {
      const ts = nowMs();
      await call(o.tool, { query: q.query });
      ms.push(nowMs() - ts);
    }
  }
  process.stderr.write(`search ${ms.length}: p50 ${median(ms).toFixed(2)} ms, total ${(nowMs() - t0).toFixed(0)} ms\n`);
}
await client.close();
