// embed.html?step=…: the section id, the element's tag and the tag without "attention-" all name one step.
import { describe, expect, test } from 'vitest';
import { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from '../../web/src/elements/registry';
import { embedStep, embedStepNames } from '../../web/src/embed-step';

describe('embed.html step names', () => {
  test('step=mask, step=attention-mask and step=causal all show <attention-mask>', () => {
    for (const name of ['mask', 'attention-mask', 'causal']) expect(embedStep(name)).toEqual({ tag: 'attention-mask', known: true });
    expect(embedStep('heads')).toEqual({ tag: 'attention-heads', known: true });
    expect(embedStep('scaling')).toEqual({ tag: 'attention-scaling', known: true });
  });

  test('every step answers to its id, its tag and its tag without the prefix, and no two steps share a name', () => {
    for (const [step, tag] of Object.entries(STEP_ELEMENTS)) {
      const short = tag.replace(/^attention-/, '');
      for (const name of [step, tag, short]) expect(embedStep(name), name).toEqual({ tag, known: true });
      // A short tag name that were another step's id would make one of them unreachable.
      if (short !== step) expect(Object.keys(STEP_ELEMENTS)).not.toContain(short);
    }
  });

  test('the whole walkthrough is all, walkthrough or attention-walkthrough', () => {
    for (const name of ['all', 'walkthrough', 'attention-walkthrough'])
      expect(embedStep(name)).toEqual({ tag: WALKTHROUGH_ELEMENT, known: true });
  });

  test('case and surrounding spaces do not matter; no step parameter is the scores step', () => {
    expect(embedStep(' Attention-Mask ')).toEqual({ tag: 'attention-mask', known: true });
    expect(embedStep('SOFTMAX')).toEqual({ tag: 'attention-softmax', known: true });
    expect(embedStep(null)).toEqual({ tag: 'attention-scores', known: true });
  });

  test('unknown names, inherited property names and near misses fall back to scores, flagged as unknown', () => {
    for (const name of [
      '',
      'masks',
      'attention-',
      'attention',
      'constructor',
      'toString',
      '__proto__',
      'hasOwnProperty',
      '<script>',
      'attention-attention-mask',
    ])
      expect(embedStep(name), name).toEqual({ tag: 'attention-scores', known: false });
  });

  test('the notice lists every step id and says element names work', () => {
    const names = embedStepNames();
    for (const step of Object.keys(STEP_ELEMENTS)) expect(names).toContain(step);
    expect(names).toContain('attention-mask');
    expect(names).toMatch(/, or all$/);
  });
});
