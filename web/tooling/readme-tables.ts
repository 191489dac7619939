// `npm run docs:readme`: writes the generated tables of the README and the pages under web/docs/ between
// their marker comments, from the settings schema, the element registry and the reader models' records
// (web/tooling/settings-docs.ts). tests/unit/settings-schema.test.ts fails while a page differs from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadWebModule } from './load-web-module';

const root = resolve(import.meta.dirname, '..', '..');
const docs = await loadWebModule<typeof import('./settings-docs')>('tooling/settings-docs.ts');
for (const [file, sections] of Object.entries(docs.markdownSections())) {
  const path = resolve(root, file);
  const before = readFileSync(path, 'utf8');
  const after = docs.withSections(before, sections);
  if (after !== before) writeFileSync(path, after);
  console.log(after === before ? `${file}: the tables were up to date` : `${file}: the tables were rewritten from the schema`);
}
