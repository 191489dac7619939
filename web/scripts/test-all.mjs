// `npm test`: builds everything, then runs every suite, and prints how long each took. Stages run in
// order, except that the fuzzer, which keeps one core busy for its fixed time, runs beside the
// single-threaded lint and type check and then the unit suite: on a 2-core machine that hides most of
// its minute. Its output is printed when it ends, so the logs do not interleave. Any failure fails the
// run, after the stages already under way have finished.
import { spawn } from 'node:child_process';

/** Runs `npm run <script>`; with `capture`, its output is kept and printed at the end instead of live. */
function run(script, { capture = false } = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', script], { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const output = [];
    if (capture) {
      child.stdout.on('data', (chunk) => output.push(chunk));
      child.stderr.on('data', (chunk) => output.push(chunk));
    }
    child.on('close', (code) => {
      if (capture) process.stdout.write(`\n----- npm run ${script} -----\n${Buffer.concat(output).toString()}`);
      resolve({ script, code: code ?? 1, seconds: (Date.now() - started) / 1000 });
    });
  });
}

async function inOrder(scripts) {
  const results = [];
  for (const script of scripts) {
    const result = await run(script);
    results.push(result);
    if (result.code !== 0) break;
  }
  return results;
}

const started = Date.now();
const results = await inOrder(['build', 'test:native', 'test:sanitize']);
if (results.every((r) => r.code === 0)) {
  const [fuzz, rest] = await Promise.all([run('test:fuzz', { capture: true }), inOrder(['lint', 'typecheck', 'test:unit'])]);
  results.push(fuzz, ...rest);
  if (results.every((r) => r.code === 0)) results.push(await run('test:browser'));
}

const failed = results.filter((r) => r.code !== 0);
console.log('\nnpm test, stage by stage (the fuzzer ran beside lint, typecheck and unit):');
for (const r of results) console.log(`  ${r.code === 0 ? 'ok  ' : 'FAIL'} ${r.script.padEnd(14)} ${r.seconds.toFixed(0).padStart(5)} s`);
console.log(`  total ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (failed.length > 0) {
  console.log(`failed: ${failed.map((r) => r.script).join(', ')}`);
  process.exit(1);
}
