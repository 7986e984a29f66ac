// bench/ort_bench.js - ONNX Runtime's latency on one model and input, for bench_backends.py.
//
//   node bench/ort_bench.js MODEL.onnx INPUT.npy [ITERS] [WARMUP] [THREADS]
//
// Runs MODEL on INPUT (a float32 C-order .npy, bound to the model's first input) with THREADS
// intra-op threads (default 1) and one inter-op thread, sequential execution and every graph
// optimisation, and
// prints one JSON line: {"median_ms":..., "min_ms":..., "load_ms":..., "version":"..."}.
// onnxruntime-node is looked up from build/node_modules (cd build && npm install
// --ignore-scripts onnxruntime-node: the CPU library ships inside the package).
'use strict';
const fs = require('fs');
const path = require('path');

const ortPath = path.join(__dirname, '..', 'build', 'node_modules', 'onnxruntime-node');
const ort = require(fs.existsSync(ortPath) ? ortPath : 'onnxruntime-node');

// The .npy header is a Python dict literal; only float32 little-endian C order is accepted.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = buf.toString('latin1', major === 1 ? 10 : 12, start);
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header))
    throw new Error(`${file}: want float32 C order, header ${header.trim()}`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').filter((s) => s.trim()).map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  // Copied so the data is 4-byte aligned whatever the header length.
  const data = new Float32Array(count);
  Buffer.from(data.buffer).set(buf.subarray(start, start + 4 * count));
  return { shape, data };
}

async function main() {
  const [model, input, itersArg, warmupArg, threadsArg] = process.argv.slice(2);
  if (!model || !input) {
    console.error('usage: node bench/ort_bench.js MODEL.onnx INPUT.npy [ITERS] [WARMUP] [THREADS]');
    process.exit(2);
  }
  const iters = Number(itersArg || 20), warmup = Number(warmupArg || 3);
  const x = readNpy(input);
  let t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threadsArg || 1),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', x.data, x.shape) };
  for (let i = 0; i < warmup; ++i) await session.run(feeds);
  const ms = [];
  for (let i = 0; i < iters; ++i) {
    t0 = process.hrtime.bigint();
    await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const median = ms.length % 2 ? ms[(ms.length - 1) / 2] : (ms[ms.length / 2 - 1] + ms[ms.length / 2]) / 2;
  const version = ort.env && ort.env.versions ? ort.env.versions.common || '' : '';
  console.log(JSON.stringify({ median_ms: median, min_ms: ms[0], load_ms: loadMs, version }));
}

main().catch((e) => {
  console.error(`ort_bench: ${e.message}`);
  process.exit(1);
});
