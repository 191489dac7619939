import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { STEP_ELEMENTS } from '../../web/src/elements/registry';
import { STEP_REGISTRY } from '../../web/src/elements/step-registry';
import { STEPS } from '../../web/src/steps/index';
import { folderName, GENERATED_DIR, stepFiles, stepSheets } from '../../web/tooling/step-files';

const SRC = resolve(import.meta.dirname, '../../web/src');
/** The stylesheets a module imports, as paths under web/src. */
const importedSheets = (module: string) =>
  [...readFileSync(resolve(SRC, module), 'utf8').matchAll(/from '([^']+\.css)\?inline'/g)].map(([, path]) =>
    resolve(SRC, dirname(module), path).slice(SRC.length + 1),
  );

describe('the step registry (web/src/elements/step-registry.ts)', () => {
  test('elements/generated/ is what `npm run generate:steps` writes from it', async () => {
    for (const [name, text] of Object.entries(await stepFiles()))
      expect(readFileSync(resolve(GENERATED_DIR, name), 'utf8'), `${name} is stale: run npm run generate:steps`).toBe(text);
  });

  test('each line names the step its module exports, in the walkthrough’s order', () => {
    expect(STEPS.map((step) => step.id)).toEqual(STEP_REGISTRY.map((entry) => entry.id));
    expect(STEPS.map((step) => step.number)).toEqual(STEPS.map((_, index) => index + 1));
    expect(Object.entries(STEP_ELEMENTS)).toEqual(STEP_REGISTRY.map((entry) => [entry.id, entry.element]));
  });

  test('tags and class names are unique', () => {
    for (const key of ['id', 'element', 'className'] as const)
      expect(new Set(STEP_REGISTRY.map((entry) => entry[key])).size, key).toBe(STEP_REGISTRY.length);
  });

  test('every stylesheet under web/src is joined into the elements’ shared sheet once (the page’s own aside)', () => {
    const onDisk = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.css') && path !== 'styles/page.css')
      .sort();
    const joined = [...importedSheets('elements/styles.ts'), ...importedSheets('elements/generated/step-styles.ts')];
    expect(joined.length, 'a sheet imported twice').toBe(new Set(joined).size);
    expect([...joined].sort()).toEqual(onDisk);
  });

  test('a sheet in a step’s folder is the step’s own (named after the folder) or its figure’s, beside its .ts', () => {
    const sheets = STEP_REGISTRY.flatMap(stepSheets);
    expect(sheets.length).toBeGreaterThan(STEP_REGISTRY.length);
    for (const path of sheets) {
      const own = basename(path) === `${folderName(dirname(path))}.css`;
      expect(own || existsSync(resolve(SRC, path.replace(/\.css$/, '.ts'))), `${path} has no component beside it`).toBe(true);
    }
  });
});
