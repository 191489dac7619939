// The article's five questions, each answered in a few sentences and a live mini-figure from the
// current snapshot, one module per answer (scale-, qkv-, heads-, map- and cost-answer.ts). The token
// the answers look at is "it" when the sentence has one (the article's question), else the last
// token; the reader can pick another.
import { controlForm, el, replaceChildren } from '../../ui/dom';
import { focusTokenIndex, tokenLabels } from '../../ui/labels';
import type { Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { workedExampleNote } from '../shared/worked-example';
import { CostAnswer } from './cost-answer';
import { HeadsAnswer } from './heads-answer';
import { MapAnswer } from './map-answer';
import { QkvAnswer } from './qkv-answer';
import { ScaleAnswer } from './scale-answer';
import { faqStepInfo } from './step-info';

export const faqStep: StepDefinition = {
  ...faqStepInfo,
  mount(body, context) {
    let snapshot: Snapshot | null = null;
    let focus = -1;
    let focusKey = '';

    const picker = el('select', { name: 'faq-token', class: 'faq-token-select' });
    picker.addEventListener('change', () => {
      focus = Number(picker.value);
      if (snapshot) draw(snapshot);
    });
    const scale = new ScaleAnswer();
    const qkv = new QkvAnswer(context.embedCode);
    const heads = new HeadsAnswer();
    const map = new MapAnswer();
    const cost = new CostAnswer();

    const worked = workedExampleNote(context);
    body.append(
      worked.element,
      controlForm({ class: 'faq-token' }, el('label', {}, 'The answers follow the token ', picker)),
      scale.element,
      qkv.element,
      heads.element,
      map.element,
      cost.element,
    );

    function draw(s: Snapshot): void {
      scale.render(s);
      qkv.render(s, focus);
      heads.render(s, focus);
      map.render(s, focus);
      cost.render(s);
    }

    return {
      render(next) {
        worked.update(next);
        snapshot = next;
        const key = next.tokens.join('\u0001');
        if (key !== focusKey) {
          focusKey = key;
          const labels = tokenLabels(next.tokens);
          replaceChildren(picker, ...labels.map((label, i) => el('option', { value: i }, label)));
          focus = focusTokenIndex(next.tokens);
        }
        picker.value = String(focus);
        draw(next);
      },
    };
  },
};
