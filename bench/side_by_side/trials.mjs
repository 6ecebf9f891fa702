// Repeated trials (--trials N): each size is run N times, the servers alternating which goes
// first (A B, B A, …) so a slow stretch of the machine falls on both. The report shows each
// figure's median over the trials, and the writes/s and search ratios of every trial, since
// one run's ratio moves with the machine's load (0.75× to 0.96× at 1,000 writes on one day).

import { median } from './stats.mjs';

/** Server order of trial `t` (0-based): as given, then reversed, alternately. */
export function trialOrder(servers, t) {
  return t % 2 === 0 ? servers : [...servers].reverse();
}

// Figures whose median over the trials is reported (the rest come from the last trial).
const MEDIAN_KEYS = [
  'connectMs', 'writesPerS', 'searchP50Ms', 'searchP95Ms', 'peakRssMb', 'coldCallP50Ms', 'bytesPerItem',
  'hitAt1', 'foundRate', 'firstTenthBatchMs', 'lastTenthBatchMs', 'load1', 'closeMs',
];

/**
 * One result per server and size: the last successful trial's, with each MEDIAN_KEYS figure
 * replaced by its median over the successful trials (a failed trial is kept only when no
 * trial succeeded). `trials` = how many succeeded.
 */
export function aggregate(results) {
  const groups = new Map();
  for (const r of results) {
    const key = `${r.server}\u0000${r.size}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  const out = [];
  for (const runs of groups.values()) {
    const ok = runs.filter((r) => !r.error);
    if (!ok.length) {
      out.push({ ...runs[runs.length - 1], trials: 0 });
      continue;
    }
    const merged = { ...ok[ok.length - 1], trials: ok.length };
    for (const k of MEDIAN_KEYS) {
      const values = ok.map((r) => r[k]).filter(Number.isFinite);
      if (values.length) merged[k] = median(values);
    }
    out.push(merged);
  }
  return out;
}

/**
 * Per size, the kioku/ref ratio of `key` in every trial both servers finished, in trial
 * order (> 1 = kioku better; higherIsBetter picks the direction).
 */
export function trialRatios(results, size, key, higherIsBetter) {
  const at = (server, t) => results.find((r) => r.server === server && r.size === size && r.trial === t && !r.error);
  const ratios = [];
  const trials = new Set(results.filter((r) => r.size === size).map((r) => r.trial));
  for (const t of [...trials].sort((a, b) => a - b)) {
    const k = at('kioku', t)?.[key];
    const r = at('ref', t)?.[key];
    if (Number.isFinite(k) && Number.isFinite(r) && k > 0 && r > 0) ratios.push(higherIsBetter ? k / r : r / k);
  }
  return ratios;
}
