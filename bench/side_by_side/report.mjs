// Prints the side-by-side figures as Markdown: the issue-15 table, the ratios, and the
// extras (cold one-shot recall, bytes per item, hit@1, search p95, batch latency drift).

import { trialRatios } from './trials.mjs';

const fmt = (v, digits) => (Number.isFinite(v) ? v.toFixed(digits) : '—');
const int = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '—');
/** Three significant figures, thousands separated. */
const sig = (v) => {
  if (!Number.isFinite(v)) return '—';
  if (Math.abs(v) >= 100) return int(Number(v.toPrecision(3)));
  return Number(v.toPrecision(3)).toString();
};

function pair(k, r, f) {
  // A failed run still shows what it measured before failing (e.g. writes before a timeout).
  const one = (x) => {
    if (!x) return '—';
    const v = f(x);
    return x.error && (v === '—' || v.includes('NaN') || v.startsWith('—')) ? 'error' : v + (x.error ? '*' : '');
  };
  return `${one(k)} / ${one(r)}`;
}

/** "kioku is ×N better" for one metric; higherIsBetter picks the direction. */
function ratio(k, r, key, higherIsBetter) {
  const a = k?.[key];
  const b = r?.[key];
  if (!Number.isFinite(a) || !Number.isFinite(b) || a <= 0 || b <= 0) return '—';
  return `${(higherIsBetter ? a / b : b / a).toFixed(2)}×`;
}

/**
 * `results`: one per server and size (trials.mjs aggregate: medians over the trials);
 * `runs`: every trial's result, for the per-trial ratios when machine.trials > 1.
 */
export function printReport(results, sizes, machine, runs = results) {
  const find = (server, size) => results.find((x) => x.server === server && x.size === size);
  const lines = [];
  const p = (s = '') => lines.push(s);
  p(`kioku vs @modelcontextprotocol/server-memory — ${machine.started}, ${machine.cpus} CPUs, node ${machine.node}`);
  if (machine.kioku) p(`kioku: ${machine.kioku}`);
  p(`load average (1/5/15 min) before ${machine.loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${machine.loadAfter.map((l) => l.toFixed(2)).join(' ')}`);
  p();
  p('| items | connect ms (kioku / ref) | writes/s (kioku / ref) | search p50 ms (kioku / ref) | server peak RSS MB (kioku / ref) |');
  p('|---|---|---|---|---|');
  for (const size of sizes) {
    const k = find('kioku', size);
    const r = find('ref', size);
    p(`| ${int(size)} | ${pair(k, r, (x) => fmt(x.connectMs, 0))} | ${pair(k, r, (x) => sig(x.writesPerS))} | ` +
      `${pair(k, r, (x) => fmt(x.searchP50Ms, 2))} | ${pair(k, r, (x) => sig(x.peakRssMb))} |`);
  }
  p();
  p('Ratios, kioku relative to the reference (> 1× = kioku better: faster, more writes/s, less memory):');
  p();
  p('| items | connect | writes/s | search p50 | peak RSS |');
  p('|---|---|---|---|---|');
  for (const size of sizes) {
    const k = find('kioku', size);
    const r = find('ref', size);
    p(`| ${int(size)} | ${ratio(k, r, 'connectMs', false)} | ${ratio(k, r, 'writesPerS', true)} | ` +
      `${ratio(k, r, 'searchP50Ms', false)} | ${ratio(k, r, 'peakRssMb', false)} |`);
  }
  if (machine.trials > 1) {
    p();
    p(`Figures above are medians over ${machine.trials} trials (servers alternating which goes first). Each trial's ratios:`);
    p();
    p('| items | writes/s ratio per trial | search p50 ratio per trial |');
    p('|---|---|---|');
    const list = (v) => (v.length ? v.map((x) => `${x.toFixed(2)}×`).join(', ') : '—');
    for (const size of sizes) {
      p(`| ${int(size)} | ${list(trialRatios(runs, size, 'writesPerS', true))} | ${list(trialRatios(runs, size, 'searchP50Ms', false))} |`);
    }
  }
  p();
  p('| items | cold `kioku call memory_recall` ms (median; spawning `/bin/true` the same way) | bytes per item (kioku db / ref file) | hit@1, found (kioku / ref) | search p95 ms (kioku / ref) | write batch ms, first → last tenth (kioku / ref) | load (1 min) |');
  p('|---|---|---|---|---|---|---|');
  for (const size of sizes) {
    const k = find('kioku', size);
    const r = find('ref', size);
    const load = [k, r].filter(Boolean).map((x) => x.load1.toFixed(1)).join(' / ');
    p(`| ${int(size)} | ${k && !k.error ? `${fmt(k.coldCallP50Ms, 1)} (${fmt(k.spawnFloorP50Ms, 1)})` : '—'} | ${pair(k, r, (x) => int(x.bytesPerItem))} | ` +
      `${pair(k, r, (x) => `${fmt(x.hitAt1 * 100, 0)}%, ${fmt(x.foundRate * 100, 0)}%`)} | ${pair(k, r, (x) => fmt(x.searchP95Ms, 2))} | ` +
      `${pair(k, r, (x) => `${fmt(x.firstTenthBatchMs, 1)} → ${fmt(x.lastTenthBatchMs, 1)}`)} | ${load} |`);
  }
  const notes = [];
  for (const x of results) {
    if (x.error) notes.push(`${x.server} ${x.size} (* = measured before this failure): ${x.error}`);
    if (Number.isFinite(x.stored) && x.stored !== x.size) notes.push(`${x.server} ${x.size}: stored ${x.stored} of ${x.size} items as new`);
    if (x.walBytesAfterCheckpoint > 0) notes.push(`${x.server} ${x.size}: WAL still ${x.walBytesAfterCheckpoint} bytes after checkpoint`);
    if (x.closeMs > 1500) notes.push(`${x.server} ${x.size}: took ${fmt(x.closeMs, 0)} ms to exit after stdin closed`);
    for (const w of x.stderrWarnings ?? []) notes.push(`${x.server} ${x.size} stderr: ${w.slice(0, 200)}`);
  }
  const largest = [...results].reverse().find((x) => x.storageBreakdown?.length);
  if (largest) {
    p();
    p(`kioku database at ${int(largest.size)} items: ${int(largest.storageBytes)} bytes; largest tables/indexes (dbstat):`);
    p();
    p('| object | bytes | per item |');
    p('|---|---|---|');
    for (const [n, b] of largest.storageBreakdown) p(`| ${n} | ${int(b)} | ${int(b / largest.size)} |`);
  }
  if (notes.length) {
    p();
    p('Notes:');
    for (const n of notes) p(`- ${n}`);
  }
  console.log(lines.join('\n'));
}
