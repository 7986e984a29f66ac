// tests/ort_run.js - ONNX Runtime's outputs for one model, for tests/gen_rnn_ort_cases.py and
// tests/gen_quant_models.py.
//
//   node tests/ort_run.js MODEL.onnx [OPTIMIZED.onnx | --no-optimizations] < INPUTS.json
//
// Reads {"name": {"dims": [...], "data": [...]}} (float32 inputs) from stdin, runs the model on
// the CPU provider and prints every output in the same form as one JSON line. With a second
// path, ONNX Runtime also writes the graph it runs after its extended optimisations there (for
// a QDQ model: QLinearConv and QLinearMatMul in place of DequantizeLinear, the float op and
// QuantizeLinear). With --no-optimizations ONNX Runtime runs the graph as written, node by node
// (its graph optimisations off: the ONNX semantics of each node). onnxruntime-node
// is looked up from build/node_modules (cd build && npm install --ignore-scripts
// onnxruntime-node), as bench/ort_bench.js does.
'use strict';
const fs = require('fs');
const path = require('path');

const ortPath = path.join(__dirname, '..', 'build', 'node_modules', 'onnxruntime-node');
const ort = require(fs.existsSync(ortPath) ? ortPath : 'onnxruntime-node');

async function main() {
  const inputs = JSON.parse(fs.readFileSync(0, 'utf8'));
  const options = { intraOpNumThreads: 1 };
  if (process.argv[3] === '--no-optimizations') options.graphOptimizationLevel = 'disabled';
  else if (process.argv[3]) Object.assign(options, { graphOptimizationLevel: 'extended', optimizedModelFilePath: process.argv[3] });
  const session = await ort.InferenceSession.create(process.argv[2], options);
  const feeds = {};
  for (const [name, t] of Object.entries(inputs)) feeds[name] = new ort.Tensor('float32', Float32Array.from(t.data), t.dims);
  const results = await session.run(feeds);
  const out = {};
  for (const [name, t] of Object.entries(results)) out[name] = { dims: t.dims, data: Array.from(t.data) };
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  console.error(String(e && e.message ? e.message : e));
  process.exit(1);
});
