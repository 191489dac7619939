// @vitest-environment happy-dom
// The settings bar's pure parts: the history a typed sentence leaves, when the field commits, and notices
// shown once each.
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { createControls, SENTENCE_COMMIT_MS } from '../../web/src/controls';
import type { Settings } from '../../web/src/settings';
import type { HistoryMode } from '../../web/src/state';
import { noticeArea, uniqueMessages } from '../../web/src/notices';
import { WalkthroughState } from '../../web/src/state';

beforeEach(() => {
  history.replaceState(null, '', '/');
});

describe('history: typing, then a commit', () => {
  test('typing (none) leaves the URL; the commit of the same settings pushes one entry', () => {
    const state = new WalkthroughState(true);
    const before = history.length;
    state.update({ sentence: 'a cat' }, 'none');
    state.update({ sentence: 'a cat sat' }, 'none');
    expect(state.settings.sentence).toBe('a cat sat');
    expect(location.search).toBe('');
    expect(history.length).toBe(before);
    state.update({ sentence: 'a cat sat' }, 'push'); // nothing new to validate, but the URL catches up
    expect(location.search).toBe('?tokens=a+cat+sat');
    expect(history.length).toBe(before + 1);
    // A second commit of the same sentence (Enter, then leaving the field) adds nothing.
    state.update({ sentence: 'a cat sat' }, 'push');
    expect(history.length).toBe(before + 1);
  });
});

describe('notices', () => {
  test('each message once, in order', () => {
    expect(uniqueMessages(['b', 'a', 'b', 'a', 'c'])).toEqual(['b', 'a', 'c']);
  });

  test('show replaces, repeats nothing, keeps its list node for the same messages; settle([]) clears', () => {
    const area = noticeArea();
    expect(area.element.hidden).toBe(true);
    area.show(['Words longer than 40 characters were shortened.', 'Words longer than 40 characters were shortened.']);
    expect(area.element.hidden).toBe(false);
    const items = () => [...area.element.querySelectorAll('li')].map((li) => li.textContent);
    expect(items()).toEqual(['Words longer than 40 characters were shortened.']);
    const first = area.element.querySelector('li');
    area.settle(['Words longer than 40 characters were shortened.']);
    expect(area.element.querySelector('li')).toBe(first); // not re-rendered: not announced again
    area.show([]); // nothing to say: the notices stay
    expect(area.element.hidden).toBe(false);
    area.settle(['The seed must be from 0 to 4294967295; -1 was changed to 0.']);
    expect(items()).toEqual(['The seed must be from 0 to 4294967295; -1 was changed to 0.']);
    area.settle([]); // a clean change: the notice described settings no longer in force
    expect(area.element.hidden).toBe(true);
  });

  test('head=99: one notice, which names the head asked for', () => {
    history.replaceState(null, '', '/?head=99');
    const state = new WalkthroughState(true);
    expect(state.settings.head).toBe(0);
    expect(state.takeInitialNotices()).toEqual(['There is only 1 head in the article’s example, so head 1 is shown instead of head 99.']);
  });

  test('a shortened word is reported once, not again at every later change', () => {
    history.replaceState(null, '', `/?tokens=${'x'.repeat(60)}+y`);
    const state = new WalkthroughState(true);
    expect(state.takeInitialNotices()).toEqual(['Words longer than 40 characters were shortened.']);
    const later: string[][] = [];
    state.subscribe((change) => later.push(change.notices));
    state.update({ causal: true });
    expect(later).toEqual([[]]);
  });
});

describe('the sentence field', () => {
  test('a pause after emptying it commits nothing; the words typed next are committed after their pause', () => {
    vi.useFakeTimers();
    try {
      const changes: [Partial<Settings>, HistoryMode | undefined][] = [];
      const controls = createControls((change, mode) => changes.push([change, mode]));
      const field = controls.element.querySelector<HTMLInputElement>('input[name="tokens"]')!;
      const type = (text: string) => {
        field.value = text;
        field.dispatchEvent(new Event('input'));
      };
      type('');
      vi.advanceTimersByTime(SENTENCE_COMMIT_MS * 3);
      expect(changes).toEqual([]);
      type('a cat sat');
      expect(changes).toEqual([[{ sentence: 'a cat sat' }, 'none']]);
      vi.advanceTimersByTime(SENTENCE_COMMIT_MS);
      expect(changes).toEqual([
        [{ sentence: 'a cat sat' }, 'none'],
        [{ sentence: 'a cat sat' }, 'push'],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
