// Maps that stay true: tests/README.md has a row for every test file and every row names a file, and the
// README's "Where things live" names every top-level folder under web/ and tests/ (and no folder that is
// gone). A new test file or folder without its line fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const folders = (path: string) =>
  readdirSync(join(root, path), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

/** The text of a Markdown section, from its `## ` heading (matched by its start) to the next. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}`);
  if (start < 0) throw new Error(`no section "## ${heading}…"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** Each name in backticks in the first cell of a table row. */
const rowNames = (text: string) =>
  [...text.matchAll(/^\| ([^|]+) \|/gm)].flatMap(([, cell]) => [...cell.matchAll(/`([^`]+)`/g)].map(([, name]) => name)).sort();

/** Test files under `folder` matching `pattern`, named by their path from it without the suffix. */
function testFiles(folder: string, pattern: RegExp): string[] {
  const names = (readdirSync(join(root, folder), { recursive: true }) as string[])
    .map((path) => path.split('\\').join('/'))
    .filter((path) => pattern.test(path));
  return names.map((path) => path.replace(pattern, '')).sort();
}

describe('tests/README.md', () => {
  const readme = read('tests/README.md');

  test('the native section has a row for each GoogleTest file under tests/cpp/, and each row is one', () => {
    const files = testFiles('tests/cpp', /\.cpp$/)
      .filter((name) => name.endsWith('_test'))
      .map((name) => `tests/cpp/${name}.cpp`);
    expect(rowNames(section(readme, 'Native C++'))).toEqual(files);
  });

  test('the unit section has a row for each tests/unit/**/*.test.ts, and each row is one', () => {
    expect(rowNames(section(readme, 'Unit'))).toEqual(testFiles('tests/unit', /\.test\.ts$/));
  });

  test('the browser section has a row for each tests/browser/*.test.ts, and each row is one', () => {
    expect(rowNames(section(readme, 'Browser'))).toEqual(testFiles('tests/browser', /\.test\.ts$/));
  });
});

describe('README.md, "Where things live"', () => {
  const layout = section(read('README.md'), 'Where things live');

  test.each(['web', 'tests'])('names every top-level folder under %s/, and only folders that exist', (parent) => {
    const named = [...new Set([...layout.matchAll(new RegExp(`\`${parent}/([\\w-]+)/\``, 'g'))].map(([, name]) => name))].sort();
    expect(named).toEqual(folders(parent));
  });
});
