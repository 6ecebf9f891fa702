// Small measurement helpers: percentiles, peak RSS of a process, a monotonic clock.

import { readFileSync } from 'node:fs';

/** Milliseconds from a monotonic clock (process.hrtime.bigint), fractional. */
export function nowMs() {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The p-quantile (0..1) of `values` by the nearest-rank method; NaN when empty. */
export function quantile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[rank - 1];
}

export const median = (values) => quantile(values, 0.5);

/**
 * Peak resident set size of `pid` in MB (VmHWM in /proc/<pid>/status, kB / 1024): the
 * kernel keeps the high-water mark, so one read before the process exits is its peak.
 * NaN when the process is gone or /proc is unavailable.
 */
export function peakRssMb(pid) {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** True while `pid` exists (signal 0). */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
