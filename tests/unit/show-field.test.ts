// @vitest-environment happy-dom
// showField (web/src/ui/dom.ts) writes a setting into its field: a field the reader is typing in keeps
// its text through a render with the same setting (a second snapshot arriving), and shows a changed
// setting; a field out of focus always shows the setting. The training form and the flash and
// long-context steps write their fields through it.
import { afterEach, describe, expect, test } from 'vitest';
import { TrainSettingsForm } from '../../web/src/features/training/settings-form';
import { DEFAULT_TRAIN_SETTINGS } from '../../web/src/features/training/train-settings';
import { el, showField } from '../../web/src/ui/dom';

afterEach(() => document.body.replaceChildren());

describe('showField', () => {
  test('a focused field keeps typed text while the setting is unchanged, and shows a new one', () => {
    const input = el('input', { type: 'text' });
    document.body.append(input);
    showField(input, 3);
    input.focus();
    input.value = '2';
    showField(input, 3);
    expect(input.value).toBe('2');
    showField(input, 5);
    expect(input.value).toBe('5');
  });

  test('a field out of focus shows the setting, typed text or not', () => {
    const input = el('input', { type: 'text' });
    document.body.append(input);
    showField(input, 3);
    input.value = '2';
    showField(input, 3);
    expect(input.value).toBe('3');
  });

  test('a select in focus keeps the reader’s choice through a render with the same setting', () => {
    const select = el('select', {}, el('option', { value: 'a' }, 'a'), el('option', { value: 'b' }, 'b'));
    document.body.append(select);
    showField(select, 'a');
    select.focus();
    select.value = 'b';
    showField(select, 'a');
    expect(select.value).toBe('b');
  });

  test('the training form keeps a learning rate being typed when the same settings arrive again', () => {
    const form = new TrainSettingsForm(() => {});
    document.body.append(form.element);
    form.show(DEFAULT_TRAIN_SETTINGS);
    const rate = form.element.querySelector<HTMLInputElement>('input[name="train-learning-rate"]')!;
    expect(rate.value).toBe(String(DEFAULT_TRAIN_SETTINGS.learningRate));
    rate.focus();
    rate.value = '0.0';
    form.show(DEFAULT_TRAIN_SETTINGS);
    expect(rate.value).toBe('0.0');
    form.show({ ...DEFAULT_TRAIN_SETTINGS, learningRate: 0.002 });
    expect(rate.value).toBe('0.002');
  });
});
