// The synthetic workload both servers get (issue 15): N items
// "module <w>_<n> handles <w> requests via src/<w>/file<n>.ts", written 100 per call,
// and the same 50 queries "file<n>.ts", each naming exactly one stored item.

/** Words cycled through as <w>; 16 so a word's rows are a common-but-not-universal term. */
export const WORDS = [
  'auth', 'billing', 'cache', 'search', 'upload', 'render', 'queue', 'metrics',
  'session', 'payment', 'export', 'import', 'report', 'notify', 'config', 'storage',
];

/** Items per write call (kioku's memory_remember batch maximum is 100). */
export const BATCH = 100;

/** Queries per search round. */
export const QUERIES = 50;

/** Item i (0-based) of the workload: its word, number (1-based), name and text. */
export function item(i) {
  const w = WORDS[i % WORDS.length];
  const n = i + 1;
  return { w, n, name: `${w}_${n}`, text: `module ${w}_${n} handles ${w} requests via src/${w}/file${n}.ts` };
}

/** The items of `size` from item `from` on, in batches of BATCH, in write order. */
export function* batches(size, from = 0) {
  for (let start = from; start < size; start += BATCH) {
    const batch = [];
    for (let i = start; i < Math.min(size, start + BATCH); ++i) batch.push(item(i));
    yield batch;
  }
}

/**
 * The QUERIES queries for `size`: "file<n>.ts" for n spread evenly over 1..size, with the
 * item each one must find. "file7.ts" is not a substring of "file17.ts" ("…e17.ts"), so the
 * reference server's substring search has exactly one right answer too.
 */
export function queries(size) {
  const out = [];
  for (let j = 0; j < QUERIES; ++j) {
    const it = item(Math.min(size - 1, Math.floor(((j + 0.5) * size) / QUERIES)));
    out.push({ query: `file${it.n}.ts`, expect: it });
  }
  return out;
}
