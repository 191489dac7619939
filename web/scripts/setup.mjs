// Installs what a fresh Debian machine with Node 20 lacks, and nothing that is already there.
// Runs before `npm start`, `npm test` and `npm run build`; uses only Node built-ins because
// node_modules may not exist yet.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
// libFuzzer's runtime for the fuzz target (npm run test:fuzz), wherever this clang version keeps it.
const fuzzerRuntime = () => {
  const base = '/usr/lib/llvm-14/lib/clang';
  return existsSync(base) && readdirSync(base).some((v) => existsSync(`${base}/${v}/lib/linux/libclang_rt.fuzzer-x86_64.a`));
};
const numpyWorks = () => spawnSync('/usr/bin/python3', ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0;

// Debian package -> how we know it is already installed.
const debianPackages = [
  ['emscripten', () => has('emcc')],
  ['libeigen3-dev', () => existsSync('/usr/include/eigen3/Eigen/Core')],
  ['chromium', () => existsSync('/usr/bin/chromium')],
  ['chromium-headless-shell', () => existsSync('/usr/bin/chromium-headless-shell')],
  ['wabt', () => has('wasm-objdump')],
  ['python3-numpy', numpyWorks],
  ['cmake', () => has('cmake')],
  ['g++', () => has('g++')],
  ['libgtest-dev', () => existsSync('/usr/include/gtest/gtest.h')],
  ['clang-14', () => has('clang++-14')],
  ['clang-format-14', () => has('clang-format-14')],
  ['libclang-rt-14-dev', fuzzerRuntime],
  // WordNet 3.0: the reader model's corpus generator (cpp/train/corpus) reads it at training time.
  ['wordnet-base', () => existsSync('/usr/share/wordnet/data.noun')],
];

const missing = debianPackages.filter(([, present]) => !present()).map(([name]) => name);
if (missing.length > 0) {
  const sudo = process.getuid && process.getuid() !== 0 ? ['sudo'] : [];
  console.log(`[setup] installing Debian packages: ${missing.join(' ')}`);
  const run = (args) =>
    execFileSync(sudo.length ? 'sudo' : args[0], sudo.length ? args : args.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...missing]);
}

// npm dependencies: install when node_modules is missing or older than the lock file.
const lockFile = join(root, 'package-lock.json');
const installedMarker = join(root, 'node_modules', '.package-lock.json');
if (!existsSync(installedMarker) || statSync(installedMarker).mtimeMs < statSync(lockFile).mtimeMs) {
  console.log('[setup] installing npm dependencies (npm ci)');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}
