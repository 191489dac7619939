// The trained models in the walkthrough: in Debian's Chromium with real clicks and typing, step 1's
// "Predict first" box asks about the reader model's resolving head (trained weights and the default
// alike) and its right answer is that head's largest weight for the pronoun, read from the page's own
// snapshot; weights=trained shows the small who-is-it model in the steps below ("road" once the reader
// types "wide"). weights=random keeps the old question; weights=bogus gets one notice.
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import type { TrainedSnapshot } from '../../web/src/features/trained-model/trained';
import { collectErrors, goLive, useServerAndBrowser } from './harness';

const site = useServerAndBrowser();

async function open(query = ''): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = collectErrors(page);
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(`${site.server.url}/${query}`);
  await goLive(page);
  return { page, errors, requests };
}

/** Clicks the quiz choice whose label is `word` (or the token index's choice) and returns the verdict the page gives. */
async function answer(page: Page, word: string | number): Promise<string> {
  const quiz = page.locator('#problem .predict');
  await (
    typeof word === 'number'
      ? quiz.locator(`.predict-choice[data-choice="${word}"]`)
      : quiz.locator('.predict-choice', { hasText: new RegExp(`^${word}$`) })
  ).click();
  const verdict = quiz.locator('.predict-verdict');
  await expect.poll(() => verdict.textContent()).not.toBe('');
  return (await verdict.textContent()) ?? '';
}

describe('the reader model in step 1’s prediction', () => {
  for (const query of ['?weights=trained', '']) {
    test(`${query || 'at default settings'}: the head's largest weight is right, and the page names the resolving head`, async () => {
      const { page, errors } = await open(query);
      // The reader model loads once step 1's figure is near; the prediction is asked of it then.
      await page.locator('#problem .reader-figure[data-status="ready"]').waitFor();
      const question = await page.locator('#problem .predict-question').textContent();
      expect(question).toMatch(/in the reader model’s head that resolves pronouns, which token will “it” draw from most\?/);
      const head = await page.evaluate(() => {
        const r = window.attentionWalkthrough!.result.reader!;
        if (r.status !== 'ready' || !r.answer) return null;
        const n = r.words.length;
        const { layer, head } = r.head;
        const at = (head * n + r.answer.pronoun) * n;
        const row = Array.from(r.attention[layer]!.data.slice(at, at + n));
        return { layer, head, top: r.words[row.indexOf(Math.max(...row))]! };
      });
      expect(head).not.toBeNull();
      const verdict = await answer(page, head!.top);
      expect(verdict).toMatch(new RegExp(`^Right: ${head!.top}\\.`));
      expect(verdict).toContain(`layer ${head!.layer + 1}, head ${head!.head + 1}`);
      // The answer shown under it is result.trained.answer.
      await page.locator('#problem .reader-figure').scrollIntoViewIfNeeded();
      const reply = await page.evaluate(() => window.attentionWalkthrough!.result.trained!.answer!);
      expect(await page.locator('#problem .reader-answer').textContent()).toContain(
        `“it” → “${reply.word}” (${Math.round(reply.probability * 100)}%)`,
      );
      expect(await page.locator('#problem .reader-antecedent').textContent()).toBe(reply.word);
      // Which words flip it come after the answer is drawn (one more model run per word), in result.reader.flips.
      await page.locator('#problem .reader-flips[aria-busy="false"]').waitFor();
      const flipped = await page.evaluate(() => {
        const r = window.attentionWalkthrough!.result.reader!;
        return r.status === 'ready' && r.flips ? r.flips.map((f) => r.words[f.position]!) : null;
      });
      const flipText = await page.locator('#problem .reader-flips').textContent();
      expect(flipped).not.toBeNull();
      expect(flipText).toMatch(flipped!.length ? /^Read as an unknown word, / : /^Read as an unknown word one at a time, no word/);
      for (const word of flipped!) expect(flipText).toContain(`“${word}”`);
      expect(errors).toEqual([]);
      await page.close();
    });
  }

  test('typing “wide” for “tired”: the steps below show “road” from the small model, step 1 the reader model’s head, live', async () => {
    const { page, errors } = await open('?weights=trained');
    const field = page.locator('input[name="tokens"]');
    await field.click();
    await page.keyboard.press('End');
    for (let i = 0; i < 'tired.'.length; i++) await page.keyboard.press('Backspace');
    await page.keyboard.type('wide.');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => {
      const r = window.attentionWalkthrough!.result;
      return r.tokens.at(-1) === 'wide.' && r.reader?.status === 'ready';
    });
    expect(await page.evaluate(() => (window.attentionWalkthrough!.result.trained as TrainedSnapshot).top[0]!.word)).toBe('road');
    const top = await page.evaluate(() => {
      const r = window.attentionWalkthrough!.result.reader!;
      if (r.status !== 'ready' || !r.answer) return null;
      const n = r.words.length;
      const at = (r.head.head * n + r.answer.pronoun) * n;
      const row = Array.from(r.attention[r.head.layer]!.data.slice(at, at + n));
      return r.words[row.indexOf(Math.max(...row))]!;
    });
    const verdict = await answer(page, top!);
    expect(verdict).toMatch(new RegExp(`^Right: ${top}\\.`));
    expect(await page.locator('#problem .reading').last().textContent()).toMatch(new RegExp(`attends most to “${top}”`));
    expect(new URL(page.url()).searchParams.get('tokens')).toBe('The animal crossed the road because it was wide.');
    expect(errors).toEqual([]);
    await page.close();
  });

  test('?weights=random keeps the seeded weights and asks which token happens to win', async () => {
    const { page, errors } = await open('?weights=random');
    const result = await page.evaluate(() => {
      const s = window.attentionWalkthrough!.result;
      const p = s.pipeline;
      const focus = s.tokens.indexOf('it');
      const row = Array.from(p.weights.data.slice((s.settings.head * p.n + focus) * p.n, (s.settings.head * p.n + focus + 1) * p.n));
      const index = row.indexOf(Math.max(...row));
      return { trained: s.trained, dModel: p.dModel, heads: p.heads, index, winner: s.tokens[index] };
    });
    expect(result.trained).toBeNull();
    expect([result.dModel, result.heads]).toEqual([8, 1]);
    expect(await page.locator('#problem .predict-question').textContent()).toBe('Random weights: which token happens to win for “it”?');
    const verdict = await answer(page, result.index);
    expect(verdict.startsWith(`Right: ${result.winner}`)).toBe(true);
    expect(verdict).toMatch(/trained model .* is what resolves it/);
    // The d_model and heads controls are live again with random weights.
    expect(await page.locator('select[name="d_model"]').isDisabled()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('weights=bogus: one clear notice, and a working page: the article’s example, the reader model in step 1', async () => {
    const { page, errors } = await open('?weights=bogus');
    const notices = await page.locator('.notices li').allTextContents();
    expect(notices).toEqual(['The weights must be example, trained or random; “bogus” was ignored, so the article’s example is used.']);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.settings.weights)).toBe('example');
    expect(await page.locator('.settings-shows').textContent()).toMatch(/^Step 1 shows the reader model/);
    expect(new URL(page.url()).searchParams.get('weights')).toBeNull();
    // The bar shows the example's shape, disabled, and the switch works.
    expect(await page.locator('select[name="d_model"]').inputValue()).toBe('8');
    expect(await page.locator('select[name="d_model"]').isDisabled()).toBe(true);
    await page.locator('select[name="weights"]').selectOption('random');
    await page.waitForFunction(() => window.attentionWalkthrough!.result.trained === null);
    expect(new URL(page.url()).searchParams.get('weights')).toBe('random');
    expect(errors).toEqual([]);
    await page.close();
  });
});

/** The reader figure's answer, its attention bars and the snapshot's reader view, once the page shows `sentence`. */
async function readerState(page: Page) {
  // As a reader would: the model loads once its figure comes near the viewport.
  await page.locator('#problem .reader-figure').scrollIntoViewIfNeeded();
  await page.locator('#problem .reader-figure[data-status="ready"]').waitFor();
  return {
    answer: await page.locator('#problem .reader-answer').textContent(),
    attention: await page.locator('#problem .problem-bars .bar-value').allTextContents(),
    view: await page.evaluate(() => {
      const r = window.attentionWalkthrough!.result.reader!;
      return r.status === 'ready' ? { causal: r.causal, answer: r.answer, words: r.words, model: r.model.causal } : null;
    }),
    // The shown head's weights at the pronoun, unrounded: the bars round to whole percents, and a
    // first-layer head can move by less than that when one word after the pronoun changes.
    headRow: await page.evaluate(() => {
      const r = window.attentionWalkthrough!.result.reader!;
      if (r.status !== 'ready' || !r.answer) return null;
      const { heads, rows, cols, data } = r.attention[r.head.layer]!;
      const start = (r.head.head * rows + r.answer.pronoun) * cols;
      return heads > r.head.head ? Array.from(data.subarray(start, start + cols)) : null;
    }),
  };
}

async function typeSentence(page: Page, sentence: string): Promise<void> {
  await page.locator('input[name="tokens"]').fill(sentence);
  await page.keyboard.press('Enter');
  await page.waitForFunction((s) => {
    const r = window.attentionWalkthrough!.result;
    return r.settings.sentence === s && r.reader?.status === 'ready';
  }, sentence);
}

describe('the reader model in step 1', () => {
  test('a typed sentence changes the answer and the attention; an unknown noun that decides is a guess; no pronoun says so; causal switches the model', async () => {
    const { page, errors } = await open('?weights=trained&tokens=The+trophy+did+not+fit+in+the+suitcase+because+it+was+too+big.');
    const big = await readerState(page);
    expect(big.view!.words[big.view!.answer!.antecedent!]).toBe(big.view!.answer!.word);
    await typeSentence(page, 'The trophy did not fit in the suitcase because it was too small.');
    const small = await readerState(page);
    expect(small.headRow).not.toBeNull();
    expect(small.headRow).not.toEqual(big.headRow);
    expect(small.answer).not.toBe(big.answer);
    expect(small.answer).toContain(`“it” → “${small.view!.answer!.word}”`);

    // Both nouns unknown: whichever the model names, it is outside the vocabulary, so the page says it is guessing.
    await typeSentence(page, 'The blicket did not fit in the zorbleck because it was too big.');
    const unknown = await readerState(page);
    expect(unknown.view!.answer!.known).toBe(false);
    expect(unknown.answer).toMatch(/^Guessing: “it” → “(blicket|zorbleck)”/);
    expect(await page.locator('#problem .reader-unknown').allTextContents()).toEqual(expect.arrayContaining(['blicket?', 'zorbleck?']));

    await typeSentence(page, 'The cat sat on the mat.');
    expect((await readerState(page)).answer).toMatch(/^This sentence has no pronoun the model resolves/);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.trained!.answer)).toBeNull();

    await typeSentence(page, 'The trophy did not fit in the suitcase because it was too big.');
    await page.locator('input[name="causal"]').check();
    await page.waitForFunction(() => {
      const r = window.attentionWalkthrough!.result.reader;
      return r?.status === 'ready' && r.causal;
    });
    const causal = await readerState(page);
    expect(causal.view!.model).toBe(true);
    expect(await page.locator('#problem .reader-model-line').textContent()).toMatch(/^Trained with the causal mask/);
    expect(await page.locator('#problem .reader-causal').textContent()).toMatch(
      /A left-to-right model at “it” has read only the 10 words up to it/,
    );
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('the trained model in step 8', () => {
  test('every layer and head has a labelled map of at least 240 px, after a table of its measured shares; step 1’s model is not fetched', async () => {
    const { page, errors, requests } = await open('?weights=trained#multi-head');
    const maps = page.locator('#multi-head .trained-head');
    expect(await maps.count()).toBe(4);
    await maps.first().scrollIntoViewIfNeeded();
    const box = await maps.first().locator('table').boundingBox();
    expect(box!.width).toBeGreaterThanOrEqual(240);
    const shares = await page.evaluate(() => (window.attentionWalkthrough!.result.trained as TrainedSnapshot).shares);
    const captions = await maps.locator('caption').allTextContents();
    shares.forEach((s, i) => expect(captions[i]).toMatch(new RegExp(`^layer ${s.layer + 1}, head ${s.head + 1}`)));
    const rows = page.locator('#multi-head table.trained-heads-shares tbody tr');
    for (const [i, s] of shares.entries()) {
      expect(await rows.nth(i).locator('th').textContent()).toBe(`layer ${s.layer + 1}, head ${s.head + 1}`);
      expect(await rows.nth(i).locator('td').first().textContent()).toBe(s.referent.toFixed(2));
    }
    // Token labels on both axes.
    const headers = await maps.first().locator('th').allTextContents();
    expect(headers).toEqual(expect.arrayContaining(['animal', 'road', 'it', 'tired.']));
    expect(await page.locator('#multi-head .trained-heads-shortcut').textContent()).toMatch(/^Layer 1 takes a shortcut/);
    // Loaded at step 8, the page never came near step 1: the reader model's weights were not downloaded.
    expect(requests.filter((url) => /reader(-causal)?-[\w-]+\.bin$/.test(url))).toEqual([]);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.reader?.status)).toBe('loading');
    expect(errors).toEqual([]);
    await page.close();
  });
});
