// `npm test`: installs what is missing, builds everything, runs every suite, and prints how long each took.
//
// After `npm run setup`, two lanes run side by side. One builds the wasm and the site, then runs the
// browser suite, whose Chromium keeps about one and a half of this 2-core machine's cores busy: the rest
// of each second goes to page waits (frames, idle slices, the settle after a change). The other lane runs
// the native, sanitizer, fuzzing, lint, type and unit stages in order under `nice -n 19`, so they take
// that spare CPU and yield it whenever the first lane wants it; the fuzzer, the lint and the type
// check (each single-threaded) run side by side, then the unit suite, whose worker threads fill both
// cores once the browser lane has ended. The first lane's output is live; the other lane's is printed as
// each of its stages ends. Any failure fails the run, after the stages already under way have finished;
// the failed stages' last lines and the lines naming what failed are then printed again above the summary.
import { spawn } from 'node:child_process';

/**
 * Runs `npm run <script>` (under `nice -n 19` when `background`); with `capture`, its output is kept and
 * printed when it ends instead of live, so the two lanes' logs do not interleave line by line. Either way
 * the output is kept, so a failed stage's last lines can be printed again at the very end: a CI log is
 * often read from its tail, and a lane that failed early is otherwise far above it.
 */
function run(script, { capture = false, background = false } = {}) {
  const started = Date.now();
  const [command, args] = background ? ['nice', ['-n', '19', 'npm', 'run', script]] : ['npm', ['run', script]];
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    for (const [stream, live] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      stream.on('data', (chunk) => {
        output.push(chunk);
        if (!capture) live.write(chunk);
      });
    }
    child.on('close', (code) => {
      const text = Buffer.concat(output).toString();
      if (capture) process.stdout.write(`\n----- npm run ${script} -----\n${text}`);
      resolve({ script, code: code ?? 1, seconds: (Date.now() - started) / 1000, text });
    });
  });
}

const plain = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');

/** The lines of a failed stage that name what failed: vitest's FAIL and ×, an error's first line, the counts. */
const FAILURE_LINE = /^\s*(FAIL|×|✗)\s|^\s*\w*Error:|^\s*(Test Files|Tests)\s/;
const SHORT_FAILURE_LINES = 30;
/** How many of a failed stage's last lines are printed again above the summary. */
const FAILURE_TAIL_LINES = 150;

async function inOrder(scripts, options) {
  const results = [];
  for (const script of scripts) {
    const result = await run(script, options);
    results.push(result);
    if (result.code !== 0) break;
  }
  return results;
}

/**
 * The browser lane: the wasm and the site, then the browser suite. `built` settles as soon as the
 * builds have (true when both passed), not when the whole lane has: the other lane's later stages wait
 * for the wasm, not for the browser suite.
 */
function browserLane() {
  const builds = inOrder(['build:wasm', 'build:site']);
  const built = builds.then((results) => results.length === 2 && results.every((r) => r.code === 0));
  const done = builds.then(async (results) => ((await built) ? [...results, await run('test:browser')] : results));
  return { built, done };
}

/**
 * The other lane: native, sanitizer, then (once the wasm the later stages load is built) the fuzzer,
 * the type check and the lint side by side, the unit tests after the lint.
 */
async function otherLane(built) {
  const options = { capture: true, background: true };
  const results = await inOrder(['test:native', 'test:sanitize'], options);
  if (results.some((r) => r.code !== 0) || !(await built)) return results;
  const [fuzz, typecheck, rest] = await Promise.all([
    run('test:fuzz', options),
    run('typecheck', options),
    inOrder(['lint', 'test:unit'], options),
  ]);
  return [...results, fuzz, typecheck, ...rest];
}

const started = Date.now();
const results = [await run('setup')];
const installed = Date.now();
if (results[0].code === 0) {
  const browser = browserLane();
  const [browserResults, otherResults] = await Promise.all([browser.done, otherLane(browser.built)]);
  results.push(...browserResults, ...otherResults);
}

const failed = results.filter((r) => r.code !== 0);
for (const r of failed) {
  const lines = plain(r.text).trimEnd().split('\n');
  console.log(`\n----- npm run ${r.script} failed; its last lines -----\n${lines.slice(-FAILURE_TAIL_LINES).join('\n')}`);
  const named = lines.filter((line) => FAILURE_LINE.test(line)).slice(0, SHORT_FAILURE_LINES);
  console.log(`\n----- npm run ${r.script}: what failed, in short -----\n${named.join('\n')}`);
}
console.log('\nnpm test, stage by stage (after setup, two lanes: build and browser; the others, in order):');
for (const r of results) console.log(`  ${r.code === 0 ? 'ok  ' : 'FAIL'} ${r.script.padEnd(14)} ${r.seconds.toFixed(0).padStart(5)} s`);
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(0);
console.log(`  total ${seconds(started)} s, of which ${seconds(installed)} s after the installs (setup)`);
if (failed.length > 0) {
  console.log(`failed: ${failed.map((r) => r.script).join(', ')}`);
  process.exit(1);
}
