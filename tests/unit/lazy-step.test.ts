// @vitest-environment happy-dom
// A step whose code is a chunk of its own (elements/lazy-step.ts): its metadata is there at once, its
// code is fetched once however often it is asked for, a failed fetch is tried again at the next
// asking, and the lines it shows in place say what is happening and why.
import { describe, expect, test } from 'vitest';
import { isLazyStep, lazyStep, loadFailureMessage, loadingMessage } from '../../web/src/elements/lazy-step';
import { STEP_REGISTRY } from '../../web/src/elements/step-registry';
import { STEPS } from '../../web/src/steps/index';
import type { StepDefinition } from '../../web/src/steps/types';

/** Every step's code, as the walkthrough's import() would fetch it. */
const stepModules = import.meta.glob('../../web/src/{steps,features}/**/step.ts');

const info = { id: 'demo', number: 7, title: 'A demo step', summary: 'One sentence.' };

function realStep(): StepDefinition {
  return {
    ...info,
    mount: (body) => {
      body.textContent = 'mounted';
      return { render: () => {} };
    },
  };
}

describe('lazyStep', () => {
  test('fetches the code once, mounts only after it, and tries again after a failed fetch', async () => {
    let fetches = 0;
    let fail = true;
    const step = lazyStep(info, async () => {
      fetches += 1;
      if (fail) throw new Error('404 Not Found');
      return realStep();
    });
    expect(isLazyStep(step)).toBe(true);
    expect(step.title).toBe('A demo step');
    const body = document.createElement('div');
    expect(() => step.mount(body, { update: () => {} })).toThrow(/before its code has loaded/);
    await expect(step.load()).rejects.toThrow('404 Not Found');
    fail = false;
    await Promise.all([step.load(), step.load()]);
    await step.load();
    expect(fetches).toBe(2);
    step.mount(body, { update: () => {} });
    expect(body.textContent).toBe('mounted');
  });

  test('its lines in place name the step and, on failure, the reason and what the reader sees', () => {
    expect(loadingMessage(info)).toBe('Loading step 7’s figures…');
    const withCopy = loadFailureMessage(info, new Error('Failed to fetch dynamically imported module'), true);
    expect(withCopy).toContain('Step 7’s live figures could not load (Failed to fetch dynamically imported module).');
    expect(withCopy).toContain('computed when the page was built');
    expect(loadFailureMessage(info, 'offline', false)).toBe(
      'Step 7’s live figures could not load (offline). Reload the page to try again.',
    );
  });

  test('every step after the first is lazy, and its metadata is its code’s own', async () => {
    const lazy = STEPS.filter(isLazyStep);
    expect(lazy.map((step) => step.id)).toEqual(STEPS.slice(1).map((step) => step.id));
    for (const step of lazy) {
      const entry = STEP_REGISTRY.find((e) => e.id === step.id)!;
      const code = ((await stepModules[`../../web/src/${entry.module}.ts`]()) as Record<string, StepDefinition>)[entry.exportName];
      const shown = ({ id, number, title, summary, numbers, formula, later }: StepDefinition) => ({
        id,
        number,
        title,
        summary,
        numbers,
        formula,
        later,
      });
      // The heading the walkthrough shows before the code is here is the one the code draws.
      expect(shown(step), step.id).toEqual(shown(code));
      expect(step.title.length).toBeGreaterThan(0);
    }
  });
});
