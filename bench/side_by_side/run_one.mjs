// One server at one size: start it over stdio with the official SDK client, write the
// workload in batches, run the search rounds, read its peak RSS, close it, then measure its
// storage and (kioku) cold one-shot recalls. Bounded by a wall-clock budget.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { batches, queries } from './workload.mjs';
import { alive, median, nowMs, peakRssMb, quantile } from './stats.mjs';

const STDERR_KEEP = 64 * 1024;

function progress(msg) {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);
}

/**
 * Runs `server` (from servers.mjs) at `size` items in the fresh directory `dir`.
 * opts: {rounds, warmup, coldRuns, budgetMs, callTimeoutMs}. Returns the figures; throws
 * when the server fails (isError, timeout, budget), after closing it.
 */
export async function runOne(server, size, dir, opts) {
  const tag = `[${server.name} ${size}]`;
  const deadline = nowMs() + opts.budgetMs;
  const callOpts = { timeout: opts.callTimeoutMs, maxTotalTimeout: opts.callTimeoutMs };
  const checkBudget = (what) => {
    if (nowMs() > deadline) throw new Error(`${tag} over the ${opts.budgetMs / 1000} s budget during ${what}`);
  };
  const out = { server: server.name, size };

  const transport = new StdioClientTransport({ ...server.launch(dir), stderr: 'pipe' });
  let stderr = '';
  transport.stderr.setEncoding('utf8');
  transport.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-STDERR_KEEP);
  });
  const client = new Client({ name: 'kioku-bench-side-by-side', version: '0.0.0' });
  let pid = null;
  try {
    await measure();
  } catch (e) {
    // Say why: the server's own last words (a failed start, a crash) beside the client's error.
    const tail = stderr.trim().split('\n').slice(-3).join(' | ');
    const err = new Error(`${e.message}${tail ? `; ${server.name} stderr: ${tail}` : ''}`);
    err.partial = out; // the figures measured before the failure (e.g. writes/s before a search timeout)
    throw err;
  } finally {
    await close();
  }

  async function measure() {
    const t0 = nowMs();
    await client.connect(transport, callOpts);
    out.connectMs = nowMs() - t0;
    pid = transport.pid;
    // As a real client does: the SDK then checks structuredContent against outputSchema.
    await client.listTools(undefined, callOpts);

    const call = async (params) => {
      const r = await client.callTool(params, undefined, callOpts);
      if (r.isError) throw new Error(`${tag} ${params.name} isError: ${JSON.stringify(r.content).slice(0, 400)}`);
      return r;
    };

    let stored = 0;
    let written = 0;
    let slowestBatchMs = 0;
    const batchMs = [];
    const total = Math.ceil(size / 100);
    const tw = nowMs();
    for (const batch of batches(size)) {
      checkBudget('writes');
      const tb = nowMs();
      stored += server.stored(await call(server.writeCall(batch)));
      const ms = nowMs() - tb;
      batchMs.push(ms);
      slowestBatchMs = Math.max(slowestBatchMs, ms);
      written += batch.length;
      const done = batchMs.length;
      if ((total >= 100 && done % Math.ceil(total / 10) === 0) || done === total) {
        progress(`${tag} wrote ${written}/${size} (${((nowMs() - tw) / 1000).toFixed(1)} s, last batch ${ms.toFixed(1)} ms)`);
      }
    }
    const writeMs = nowMs() - tw;
    Object.assign(out, {
      writesPerS: (written / writeMs) * 1000,
      stored,
      batchP50Ms: median(batchMs),
      firstTenthBatchMs: median(batchMs.slice(0, Math.max(1, Math.ceil(batchMs.length / 10)))),
      lastTenthBatchMs: median(batchMs.slice(-Math.max(1, Math.ceil(batchMs.length / 10)))),
      slowestBatchMs,
    });

    const qs = queries(size);
    for (const q of qs.slice(0, opts.warmup)) await call(server.searchCall(q.query));
    const searchMs = [];
    let hits = 0;
    let found = 0;
    for (let round = 0; round < opts.rounds; ++round) {
      checkBudget('searches');
      for (const q of qs) {
        const ts = nowMs();
        const r = await call(server.searchCall(q.query));
        searchMs.push(nowMs() - ts);
        if (round === 0 && server.hit(r, q.expect)) ++hits;
        if (round === 0 && server.found(r, q.expect)) ++found;
      }
    }
    Object.assign(out, {
      searchP50Ms: median(searchMs),
      searchP95Ms: quantile(searchMs, 0.95),
      searchMaxMs: Math.max(...searchMs),
      hitAt1: hits / qs.length,
      foundRate: found / qs.length,
    });
    progress(`${tag} search p50 ${out.searchP50Ms.toFixed(2)} ms, hit@1 ${hits}/${qs.length}, found ${found}/${qs.length}`);
    out.peakRssMb = peakRssMb(pid);
  }

  async function close() {
    const tc = nowMs();
    await client.close().catch(() => {});
    // close() gives up waiting after 2 s (then SIGTERM); wait for the exit itself.
    while (pid && alive(pid) && nowMs() - tc < 10_000) await sleep(10);
    out.closeMs = nowMs() - tc;
    out.stderrWarnings = stderr.split('\n').filter((l) => /\b(warn|warning|error)\b/i.test(l)).slice(-5);
  }

  const storage = server.storageBytes(dir);
  out.storageBytes = storage.bytes;
  out.walBytesAfterCheckpoint = storage.walBytes;
  out.bytesPerItem = storage.bytes / size;
  out.storageBreakdown = server.storageBreakdown(dir);

  if (server.coldCall && opts.coldRuns > 0) {
    const qs = queries(size);
    const coldMs = [];
    const floorMs = [];
    let coldHits = 0;
    for (let i = 0; i < opts.coldRuns; ++i) {
      checkBudget('cold calls');
      const q = qs[(i * 7) % qs.length];
      const r = server.coldCall(dir, q.query, q.expect);
      coldMs.push(r.ms);
      if (r.hit) ++coldHits;
      floorMs.push(server.spawnFloor(dir));
    }
    out.coldCallP50Ms = median(coldMs);
    out.spawnFloorP50Ms = median(floorMs);
    out.coldCallHits = `${coldHits}/${opts.coldRuns}`;
    progress(`${tag} cold kioku call memory_recall median ${out.coldCallP50Ms.toFixed(1)} ms ` +
      `(spawning /bin/true: ${out.spawnFloorP50Ms.toFixed(1)} ms)`);
  }
  return out;
}
