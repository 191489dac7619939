// "Train it yourself" (<attention-train>) in Chromium, driven with real clicks and keys: Start trains
// in a worker to the target accuracy and the page says how long it took; Pause stops the counter
// (Step then adds exactly one); Reset returns to step 0; bad learning rates are clamped with a notice
// and no NaN reaches the screen; and the walkthrough's own controls keep drawing while it trains.
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { attributeMatching, collectErrors, launchBrowser, serve, settled, started, textMatching, type StaticServer } from './harness';

let server: StaticServer;
let browser: Browser;

beforeAll(async () => {
  server = await serve({
    routes: {
      '/host.html': {
        body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title></head><body><main>
<attention-train></attention-train><attention-scores tokens="a b c" weights="random"></attention-scores>
</main><script type="module" src="./embed/attention-by-hand.js"></script></body></html>`,
      },
    },
  });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(): Promise<{ page: Page; errors: string[]; body: Locator }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = collectErrors(page);
  await page.goto(`${server.url}/host.html`);
  expect(await started(page.locator('attention-train'))).toBe('true');
  return { page, errors, body: page.locator('attention-train [data-train-phase]') };
}

const stepOf = async (body: Locator) => Number(await body.getAttribute('data-train-step'));

describe('<attention-train>', () => {
  test('Start trains to 99% held-out accuracy and says how long it took; Reset returns to step 0', async () => {
    const { page, errors, body } = await open();
    expect(await body.getAttribute('data-train-phase')).toBe('idle');
    await page.getByRole('button', { name: 'Start' }).click();
    await attributeMatching(body, 'data-train-phase', /^finished$/);
    expect(await stepOf(body)).toBe(400);
    const status = await page.locator('attention-train .train-status').innerText();
    expect(status).toMatch(
      /^Done: 400 steps in [\d.]+ (ms|s), 100\.0% held-out accuracy\. It first reached 99% held-out accuracy at step \d+, after [\d.]+ (ms|s) of training on your machine\.$/,
    );
    expect(await page.locator('attention-train progress').evaluate((p: HTMLProgressElement) => [p.value, p.max])).toEqual([400, 400]);
    // The probe's prediction and the bars from "it": the model answers step 1's question.
    expect(await page.locator('attention-train .train-prediction').innerText()).toMatch(
      /^At “it” the model now predicts “animal” \(\d+%\)/,
    );
    // Swapping the adjective changes the answer to the road.
    await page.getByRole('button', { name: 'Swap the adjective' }).click();
    await textMatching(page.locator('attention-train .train-prediction'), /predicts “road”/);
    expect(await page.locator('attention-train input.train-probe-input').inputValue()).toBe(
      'the animal crossed the road because it was wide',
    );
    const text = await page.locator('attention-train').innerText();
    expect(text).not.toMatch(/\bNaN\b|Infinity|undefined/);

    await page.getByRole('button', { name: 'Reset' }).click();
    expect(await body.getAttribute('data-train-phase')).toBe('idle');
    expect(await stepOf(body)).toBe(0);
    expect(await page.locator('attention-train .train-progress-text').innerText()).toBe('Step 0 of 400');
    expect(errors).toEqual([]);
    await page.close();
  });

  test('Pause stops the counter, Step adds exactly one, and the other elements keep drawing', async () => {
    const { page, errors, body } = await open();
    await page.locator('attention-train input[name="train-steps"]').fill('5000');
    await page.keyboard.press('Tab');
    await page.getByRole('button', { name: 'Start' }).click();
    await attributeMatching(body, 'data-train-step', /^[1-9]\d*$/);
    // While it trains, another element's settings change is computed and drawn.
    await page.evaluate(() => document.querySelector('attention-scores')!.setAttribute('tokens', 'one two three four'));
    await settled(page, 'attention-scores');
    expect(await page.locator('attention-scores table.matrix').nth(2).locator('tbody th').allTextContents()).toEqual([
      'one',
      'two',
      'three',
      'four',
    ]);
    await page.getByRole('button', { name: 'Pause' }).click();
    expect(await body.getAttribute('data-train-phase')).toBe('paused');
    // The worker finishes the chunk it was in and says it stopped: from then on the count is still,
    // and Step adds exactly one to it.
    await attributeMatching(body, 'data-train-worker', /^paused$/);
    const paused = await stepOf(body);
    expect(paused).toBeLessThan(5000);
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await attributeMatching(body, 'data-train-step', new RegExp(`^${paused + 1}$`));
    expect(await page.getByRole('button', { name: 'Resume' }).isEnabled()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('bad learning rates and step counts are clamped where the reader typed them, with a notice', async () => {
    const { page, errors } = await open();
    const rate = page.locator('attention-train input[name="train-learning-rate"]');
    const notices = page.locator('attention-train .train-notices');
    for (const [typed, shown, message] of [
      ['NaN', '0.003', /The learning rate must be a number; “NaN” was ignored, so it stays 0\.003\./],
      [
        '-1',
        '0.00001',
        /The learning rate must be from 0\.00001 to 1 \(at 0 or below nothing is learned, or the loss climbs\); -1 was changed to 0\.00001\./,
      ],
      ['1e9', '1', /The learning rate must be from 0\.00001 to 1; 1000000000 was changed to 1\./],
    ] as const) {
      await rate.fill(typed);
      await page.keyboard.press('Tab');
      await textMatching(notices, message);
      expect(await rate.inputValue()).toBe(shown);
    }
    await page.locator('attention-train input[name="train-steps"]').fill('999999');
    await page.keyboard.press('Tab');
    await textMatching(notices, /The number of steps must be from 1 to 5000; 999999 was changed to 5000\./);
    expect(await page.locator('attention-train .train-progress-text').innerText()).toBe('Step 0 of 5000');
    expect(errors).toEqual([]);
    await page.close();
  });
});
