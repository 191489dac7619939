// `npm run train:weights`: builds the native trainers and regenerates every shipped model in
// web/src/model/, each from the command line in its .args file (the reproducibility ctests read the
// same files: a fresh run must give the committed bytes):
//   who-is-it.bin      step 11's article model (cpp/train/train_cli.cpp), and who-is-it.json;
//   reader.bin         step 1's reader model, bidirectional (cpp/train/reader_cli.cpp), and reader.json;
//   reader-causal.bin  the same trained with the causal mask, and reader-causal.json;
//   reader-aliases.txt the reader models' alias table from WordNet (cpp/train/reader_aliases.h), made
//                      for reader.bin's vocabulary, and both records measured again with it (as the
//                      page reads the models).
// The two reader models train side by side, one per core. Their corpus reads WordNet 3.0 (Debian's
// wordnet-base), installed here when missing. `--measure` (`npm run measure:reader`) trains nothing:
// it makes the alias table for the committed reader.bin and rewrites both records, e.g. after a
// retrained model was merged.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const model = join(root, 'web', 'src', 'model');
const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: 'inherit' });
const argsOf = (name) =>
  readFileSync(join(model, `${name}.args`), 'utf8')
    .trim()
    .split(/\s+/);
const measureOnly = process.argv.includes('--measure');
const aliases = join(model, 'reader-aliases.txt');
const outputs = (name) => ['--out', join(model, `${name}.bin`), '--json', join(model, `${name}.json`)];

if (!existsSync('/usr/share/wordnet/data.noun')) {
  const sudo = process.getuid && process.getuid() !== 0 ? ['sudo'] : [];
  const apt = (args) => run(sudo.length ? 'sudo' : 'apt-get', sudo.length ? ['apt-get', ...args] : args);
  console.log('[train:weights] installing wordnet-base (the reader corpus reads WordNet 3.0)');
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', '--no-install-recommends', 'wordnet-base']);
}

run('cmake', ['-S', '.', '-B', 'build/native', '-DCMAKE_BUILD_TYPE=Release']);
run('cmake', ['--build', 'build/native', '-j2', '--target', 'abh_train', 'abh_train_reader']);
const reader = join(root, 'build', 'native', 'abh_train_reader');
if (!measureOnly) run(join(root, 'build', 'native', 'abh_train'), [...argsOf('who-is-it'), ...outputs('who-is-it')]);

// Each reader run's log lines carry its name; either failing fails the script.
const readerRun = (name, extra) =>
  new Promise((resolve, reject) => {
    const child = spawn(reader, [...argsOf(name), ...extra], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let pending = '';
    child.stdout.on('data', (chunk) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop();
      for (const line of lines) console.log(`[${name}] ${line}`);
    });
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${name}: abh_train_reader exited with ${code}`))));
  });
const names = ['reader', 'reader-causal'];
if (!measureOnly) await Promise.all(names.map((name) => readerRun(name, outputs(name))));
// the table serves both models: they are trained on the same corpus, so they share one vocabulary
run(reader, ['--make-aliases', aliases, '--evaluate', join(model, 'reader.bin')]);
await Promise.all(
  names.map((name) =>
    readerRun(name, ['--evaluate', join(model, `${name}.bin`), '--aliases', aliases, '--json', join(model, `${name}.json`)]),
  ),
);
