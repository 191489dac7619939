// Formats (or, with --check, checks) the C++ with clang-format and the repository's .clang-format.
// Debian's clang-14 package ships it as clang-format-14; either name is used.
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const check = process.argv.includes('--check');
const binary = ['clang-format-14', 'clang-format'].find((name) => spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0);
if (!binary) {
  console.error('clang-format not found: install clang-format-14 (npm run setup does)');
  process.exit(1);
}
const files = execFileSync('git', ['ls-files', '*.cpp', '*.h'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
const args = check ? ['--dry-run', '--Werror'] : ['-i'];
const result = spawnSync(binary, [...args, ...files], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
