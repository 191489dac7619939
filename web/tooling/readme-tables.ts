// `npm run docs:readme`: writes the README's settings and element tables between their marker comments,
// generated from the settings schema and the element registry (web/tooling/settings-docs.ts).
// tests/unit/settings-schema.test.ts fails while the README differs from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadWebModule } from './load-web-module';

const readme = resolve(import.meta.dirname, '..', '..', 'README.md');
const docs = await loadWebModule<typeof import('./settings-docs')>('tooling/settings-docs.ts');
const before = readFileSync(readme, 'utf8');
const after = docs.withSections(before, docs.readmeSections());
if (after !== before) writeFileSync(readme, after);
console.log(after === before ? 'README.md: the tables were up to date' : 'README.md: the tables were rewritten from the schema');
