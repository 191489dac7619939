// No injection: markup, script, javascript: URLs and CSS-breaking strings fed everywhere the product
// accepts text — the URL (tokens and every other parameter), the sentence input typed key by key,
// every element attribute (in the host page's HTML and set later), embed.html's parameters and the
// "Embed this step" snippet — run no script (no dialog, window.__pwned stays unset), create no
// element, hide nothing, and appear in the DOM as text.
// The URL's payloads: each payload in every parameter at once as a full page load, then in the seven
// combinations one by one (tokens with each other parameter; tokens alone) through the page's own
// back/forward path (pushState + popstate) on that loaded page. Every wait is on what the page reports
// (data-ready, the element's updateComplete, the text it shows), never on a time.
import type { Frame, Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { frameResizeListener } from '../../web/src/elements/embed-code';
import { settingsFromParams, shownSettings as shownShape, tokenize, validateSettings } from '../../web/src/settings';
import { builtInlineStyles, collectErrors, goLive, settled, started, textMatching, useServerAndBrowser } from './harness';

/** Each one, if it ever ran, sets window.__pwned and/or opens a dialog. */
export const PAYLOADS = [
  '<img src=x onerror="window.__pwned=1;alert(1)">',
  '"><script>window.__pwned=1;alert(1)</script>',
  "'><svg onload=window.__pwned=1>",
  'javascript:window.__pwned=1;alert(1)',
  '</style><style>*{display:none}</style>',
  '"; background:url(javascript:window.__pwned=1); x:"',
  '<a href="javascript:alert(1)">click</a>',
  '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
  '</textarea><script>alert(1)</script>',
  '${alert(1)} {{constructor.constructor("alert(1)")()}}',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '&lt;img src=x onerror=alert(1)&gt; &#x3C;script&#x3E;',
];

const SETTING_ATTRIBUTES = ['tokens', 'd-model', 'heads', 'head', 'causal', 'scale', 'seed', 'controls', 'theme'];
const URL_PARAMS = ['tokens', 'd_model', 'heads', 'head', 'causal', 'scale', 'seed'];

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The host page an author might write: every payload pasted into an attribute (HTML-escaped, as a CMS stores it). */
function hostPage(): string {
  const elements = PAYLOADS.map((payload, i) => {
    const attribute = SETTING_ATTRIBUTES[i % SETTING_ATTRIBUTES.length];
    return `<attention-scores tokens="${escapeHtml(payload)}" ${attribute === 'tokens' ? '' : `${attribute}="${escapeHtml(payload)}"`} data-case="${i}"></attention-scores>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title></head><body><main><h1>Host</h1>
${elements.join('\n')}
<attention-walkthrough tokens="${escapeHtml(PAYLOADS.join(' '))}" controls="${escapeHtml(PAYLOADS[0])}" theme="${escapeHtml(PAYLOADS[4])}"></attention-walkthrough>
</main><script type="module" src="./embed/attention-by-hand.js"></script></body></html>`;
}

/** Read at request time, so a test can add a page (the pasted snippet) to the running site.server. */
const routes: Record<string, { body: string }> = { '/host.html': { body: hostPage() } };
const site = useServerAndBrowser({ serve: { routes } });

interface Watched {
  page: Page;
  errors: string[];
  dialogs: string[];
}

async function watchedPage(): Promise<Watched> {
  const page = await site.browser.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const errors = collectErrors(page);
  return { page, errors, dialogs };
}

/**
 * Script never ran in any frame; no element from a payload exists in any document or shadow root; nothing
 * is hidden; no computed background names a javascript: URL. `styles: false` leaves out the last (it asks
 * every element of the page for its computed style), for the popstate steps between two full checks.
 */
async function expectInert(page: Page, dialogs: string[], options: { styles?: boolean } = {}): Promise<void> {
  expect(dialogs).toEqual([]);
  for (const frame of page.frames()) await expectFrameInert(frame, options.styles ?? true);
}

async function expectFrameInert(frame: Frame, styles: boolean): Promise<void> {
  // The one inline script allowed: the pasted iframe snippet's own resize listener, exactly as the site
  // writes it; the inline styles allowed: the page's own stylesheet, exactly as the build inlined it.
  const report = await frame.evaluate(
    ({ snippetListener, pageStyles, styles }) => {
      const roots: (Document | ShadowRoot)[] = [document];
      for (let i = 0; i < roots.length; i++)
        for (const node of roots[i].querySelectorAll('*')) if (node.shadowRoot) roots.push(node.shadowRoot);
      const injected: string[] = [];
      const hidden: string[] = [];
      const badStyles: string[] = [];
      for (const root of roots) {
        for (const node of root.querySelectorAll(
          'img, iframe, svg[onload], a[href^="javascript" i], script:not([src]), style, [onerror], [onload], [onclick], mglyph, mtext',
        )) {
          // KaTeX MathML at build time uses <mtext>; the pasted iframe snippet is our own embed.html.
          if (node.tagName.toLowerCase() === 'mtext' && node.closest('.formula')) continue;
          if (node.tagName.toLowerCase() === 'iframe' && /\/embed\.html\?/.test(node.getAttribute('src') ?? '')) continue;
          if (node.tagName.toLowerCase() === 'script' && node.textContent === snippetListener) continue;
          if (node.tagName.toLowerCase() === 'style' && node.parentNode === document.head && pageStyles.includes(node.textContent ?? ''))
            continue;
          injected.push(node.outerHTML.slice(0, 80));
        }
        for (const section of root.querySelectorAll('section.step, .controls, .notices:not([hidden])')) {
          const style = getComputedStyle(section);
          if (style.display === 'none' || style.visibility === 'hidden' || (section as HTMLElement).offsetHeight === 0)
            hidden.push(section.className);
        }
        if (styles)
          for (const node of root.querySelectorAll('*')) {
            const bg = getComputedStyle(node).backgroundImage;
            if (/javascript/i.test(bg)) badStyles.push(bg);
          }
      }
      return { pwned: (window as unknown as { __pwned?: unknown }).__pwned, injected, hidden, badStyles };
    },
    { snippetListener: frameResizeListener(new URL(site.server.url).origin), pageStyles: [builtInlineStyles().page], styles },
  );
  expect(report).toEqual({ pwned: undefined, injected: [], hidden: [], badStyles: [] });
}

/** All text of the page, shadow roots included. */
function allText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const roots: (Document | ShadowRoot)[] = [document];
    for (let i = 0; i < roots.length; i++)
      for (const node of roots[i].querySelectorAll('*')) if (node.shadowRoot) roots.push(node.shadowRoot);
    return roots.map((r) => (r instanceof Document ? r.body.textContent : r.textContent)).join('\n');
  });
}

/** The tokens the page shows for a sentence: its words, each as text (over-long ones shortened). */
const wordsOf = (sentence: string) => tokenize(sentence).tokens;
/** A row label without the position added to repeated words. */
const unlabel = (label: string) => label.replace(/ \(\d+\)$/, '');

let cases = 0;

// Every test has a page of its own and waits only on what it reports: they run side by side.
describe.concurrent('untrusted text is only ever text', () => {
  test('URL parameters: every payload in tokens and in every other parameter', async ({ expect }) => {
    const { page, errors, dialogs } = await watchedPage();
    /** The walkthrough's settings (element.config: the shape it shows), once it shows them everywhere. */
    const shownSettings = async () => {
      await settled(page);
      return page.evaluate(() => window.attentionWalkthrough!.config);
    };
    for (const payload of PAYLOADS) {
      // A full load with the payload in every parameter: each is parsed, validated and its notice drawn.
      const everywhere = new URLSearchParams(Object.fromEntries(URL_PARAMS.map((param) => [param, payload])));
      await page.goto(`${site.server.url}/index.html?${everywhere}`);
      await goLive(page);
      expect(await shownSettings()).toEqual(shownShape(settingsFromParams(everywhere).settings));
      let text = await allText(page);
      for (const word of wordsOf(payload)) expect(text).toContain(word);
      await expectInert(page, dialogs);
      cases++;
      // Then each parameter with the payload in tokens too, as Back and Forward bring them; tokens alone last.
      await page.evaluate(() => document.querySelector('attention-walkthrough')!.setAttribute('debug', ''));
      for (const param of [...URL_PARAMS.filter((p) => p !== 'tokens'), 'tokens']) {
        const query = new URLSearchParams({ [param]: payload, ...(param === 'tokens' ? {} : { tokens: payload }) });
        await page.evaluate((query) => {
          history.pushState(null, '', `?${query}`);
          dispatchEvent(new PopStateEvent('popstate'));
          // Every step drawn now, not in idle time (the settings computed once, as the popstate asked).
          (document.querySelector('attention-walkthrough') as unknown as { debug: { flush(): void } }).debug.flush();
        }, query.toString());
        expect(await shownSettings()).toEqual(shownShape(settingsFromParams(query).settings));
        await expectInert(page, dialogs, { styles: param === 'tokens' });
        cases++;
      }
      // Tokens alone: its words are on the page as text.
      text = await allText(page);
      for (const word of wordsOf(payload)) expect(text).toContain(word);
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);

  test('the sentence input, typed key by key, then committed with Tab', async ({ expect }) => {
    const { page, errors, dialogs } = await watchedPage();
    await page.goto(`${site.server.url}/index.html`);
    await goLive(page);
    const input = page.locator('input[name="tokens"]');
    for (const payload of PAYLOADS) {
      await input.fill('');
      await input.pressSequentially(payload);
      await page.keyboard.press('Tab');
      const shown = validateSettings({ sentence: payload }).settings.sentence;
      // The scores step may be off screen, left for idle time: draw every step now, then wait until the
      // walkthrough says it shows its settings everywhere.
      await page.evaluate(() => {
        const walkthrough = document.querySelector('attention-walkthrough')!;
        walkthrough.setAttribute('debug', '');
        (walkthrough as unknown as { debug: { flush(): void } }).debug.flush();
      });
      await settled(page);
      expect(await page.evaluate(() => window.attentionWalkthrough!.config.sentence)).toBe(shown);
      expect((await page.locator('#scores table.matrix').nth(2).locator('tbody th').allTextContents()).map(unlabel)).toEqual(
        wordsOf(payload),
      );
      expect(await input.inputValue()).toBe(shown);
      await expectInert(page, dialogs);
      cases++;
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);

  test('element attributes, as pasted into a host page and as set later', async ({ expect }) => {
    const { page, errors, dialogs } = await watchedPage();
    await page.goto(`${site.server.url}/host.html`);
    const elements = page.locator('attention-scores, attention-walkthrough');
    const count = await elements.count();
    for (let i = 0; i < count; i++) {
      await elements.nth(i).scrollIntoViewIfNeeded();
      expect(await started(elements.nth(i))).toBe('true');
      cases++;
    }
    // The attribute's words are the figure's labels; bad values are named in the notice, as text.
    for (let i = 0; i < PAYLOADS.length; i++) {
      const element = page.locator(`attention-scores[data-case="${i}"]`);
      const labels = await element.locator('table.matrix').nth(2).locator('tbody th').allTextContents();
      expect(labels.map(unlabel)).toEqual(wordsOf(PAYLOADS[i]));
    }
    await expectInert(page, dialogs);
    // Set later, on a running element: every attribute, every payload.
    const target = page.locator('attention-scores').first();
    for (const payload of PAYLOADS) {
      // One attribute at a time, each change computed and drawn before the next.
      await target.evaluate(
        async (el, { attributes, value }) => {
          for (const name of attributes) {
            el.setAttribute(name, value);
            await (el as HTMLElement & { updateComplete: Promise<void> }).updateComplete;
          }
        },
        { attributes: SETTING_ATTRIBUTES, value: payload },
      );
      cases += SETTING_ATTRIBUTES.length;
      await expectInert(page, dialogs);
      expect(await target.getAttribute('data-ready')).toBe('true');
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);

  test('embed.html: payloads as the step name and as every parameter', async ({ expect }) => {
    const { page, errors, dialogs } = await watchedPage();
    for (const payload of PAYLOADS) {
      const query = new URLSearchParams({
        step: payload,
        tokens: payload,
        controls: payload,
        theme: payload,
        d_model: payload,
        seed: payload,
      });
      await page.goto(`${site.server.url}/embed.html?${query}`);
      expect(await started(page.locator('attention-scores'))).toBe('true');
      const notice = await page.locator('.embed-notice').innerText();
      expect(notice).toContain('There is no step called “');
      expect(notice).toContain(payload.slice(0, 20));
      await expectInert(page, dialogs);
      cases++;
    }
    // Names that exist on every object are not steps either.
    for (const step of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      await page.goto(`${site.server.url}/embed.html?step=${step}`);
      expect(await textMatching(page.locator('.embed-notice'), new RegExp(`no step called “${step}”`))).toContain(
        `no step called “${step}”`,
      );
      expect(await started(page.locator('attention-scores'))).toBe('true');
      cases++;
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);

  test('"Embed this step" with payload tokens writes snippets that paste as exactly one inert element', async ({ expect }) => {
    const { page, errors, dialogs } = await watchedPage();
    for (const payload of PAYLOADS.slice(0, 6)) {
      await page.goto(`${site.server.url}/index.html?${new URLSearchParams({ tokens: payload })}`);
      await goLive(page);
      const tools = page.locator('#scores .export-tools').first();
      await tools.locator('.export-toggle').click();
      await tools.getByRole('button', { name: 'Embed this step' }).click();
      const [elementSnippet, iframeSnippet] = await tools
        .locator('.embed-code textarea')
        .evaluateAll((areas) => areas.map((a) => (a as HTMLTextAreaElement).value));
      // Pasted, as the snippet says, into a blank page on the site's origin.
      routes['/blank.html'] = {
        body: `<!doctype html><html lang="en"><head><title>Blank</title></head><body>${elementSnippet}\n${iframeSnippet}</body></html>`,
      };
      await page.goto(`${site.server.url}/blank.html`);
      const pasted = page.locator('attention-scores');
      expect(await pasted.count()).toBe(1);
      expect(await pasted.getAttribute('tokens')).toBe(validateSettings({ sentence: payload }).settings.sentence);
      expect(await page.locator('body > *').evaluateAll((nodes) => nodes.map((n) => n.tagName.toLowerCase()))).toEqual([
        'script',
        'attention-scores',
        'iframe',
        'script',
      ]);
      expect(await started(pasted)).toBe('true');
      await expectInert(page, dialogs);
      cases++;
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);

  afterAll(() => {
    console.log(`[injection] ${PAYLOADS.length} payloads in ${cases} placements: no script ran, no element was created`);
  });
});
