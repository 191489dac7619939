// `npm run train:weights`: builds the native trainer (cpp/train/train_cli.cpp) and regenerates the
// shipped weights, web/src/model/who-is-it.bin, and the record beside it (who-is-it.json: task,
// size, steps, seed, held-out accuracy). The command line lives in who-is-it.args, which the
// reproducibility ctest (CMakeLists.txt) reads too: a fresh run must give the committed bytes.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const model = join(root, 'web', 'src', 'model');
const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: 'inherit' });

run('cmake', ['-S', '.', '-B', 'build/native', '-DCMAKE_BUILD_TYPE=Release']);
run('cmake', ['--build', 'build/native', '-j2', '--target', 'abh_train']);
const args = readFileSync(join(model, 'who-is-it.args'), 'utf8').trim().split(/\s+/);
run(join(root, 'build', 'native', 'abh_train'), [...args, '--out', join(model, 'who-is-it.bin'), '--json', join(model, 'who-is-it.json')]);
