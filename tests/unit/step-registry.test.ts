import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { STEP_ELEMENTS } from '../../web/src/elements/registry';
import { STEP_REGISTRY } from '../../web/src/elements/step-registry';
import { STEPS } from '../../web/src/steps/index';
import { GENERATED_DIR, stepFiles } from '../../web/tooling/step-files';

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
});
