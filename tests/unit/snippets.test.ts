// Every element and iframe snippet the docs page and the README show does what they say: each tag is one
// the bundle defines, each attribute one that element reads, and each value is taken as written (no
// notice, nothing clamped), through the same validation the elements and embed.html use. The live examples
// on the docs page are such snippets too. The iframe-resizing script runs in happy-dom, and the styling
// snippet names only custom properties the elements' styles read and parts they have. The TypeScript snippets are compiled against the packed
// declarations by tests/unit/package.test.ts; tests/browser/embed-snippet.test.ts runs the embed snippets.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Window } from 'happy-dom';
import { describe, expect, test } from 'vitest';
import {
  OBSERVED_ATTRIBUTES,
  parseControls,
  settingsFromAttributes,
  themeNotices,
  trainingFromAttributes,
} from '../../web/src/elements/attributes';
import { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from '../../web/src/elements/registry';
import { embedStep } from '../../web/src/embed-step';
import { settingsFromParams } from '../../web/src/settings';
import { ELEMENT_SETTINGS } from '../../web/src/settings-schema';
import { TRAIN_ATTRIBUTES } from '../../web/src/features/training/train-settings';
import { decodeHtml } from './helpers';

const root = resolve(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The text of every code block: the docs page's <pre><code> and <h3><code> (decoded), the README's fences. */
function snippets(): { where: string; code: string }[] {
  const docs = read('web/docs.html');
  const fromDocs = [...docs.matchAll(/<code>([\s\S]*?)<\/code>/g)].map(([, code]) => ({ where: 'docs.html', code: decodeHtml(code) }));
  const live = [...docs.matchAll(/<(attention-[a-z-]+)\b[^>]*><\/\1>/g)].map(([tag]) => ({ where: 'docs.html (live)', code: tag }));
  const fromReadme = [...read('README.md').matchAll(/```\w*\n([\s\S]*?)```/g)].map(([, code]) => ({ where: 'README.md', code }));
  return [...fromDocs, ...live, ...fromReadme];
}

interface Tag {
  where: string;
  tag: string;
  attributes: Map<string, string>;
}

/**
 * Every <attention-*> opening tag with its attributes. Framework spellings are read as what they pass:
 * Vue's `:name` and JSX's `name={…}` bind a value the snippet does not show (left out), `@event` is a
 * listener (left out), and a bare name is present with an empty value.
 */
function elementTags(): Tag[] {
  const tags: Tag[] = [];
  for (const { where, code } of snippets()) {
    for (const [, tag, source] of code.matchAll(/<(attention-[a-z-]+)\b([^>]*?)\/?>/g)) {
      const attributes = new Map<string, string>();
      for (const [, name, , quoted, braced] of source.matchAll(/([:@]?[a-z][\w-]*)(=(?:"([^"]*)"|\{([^}]*)\}))?/g)) {
        if (name.startsWith(':') || name.startsWith('@') || braced !== undefined) continue;
        attributes.set(name, quoted ?? '');
      }
      tags.push({ where, tag, attributes });
    }
  }
  return tags;
}

/** A stand-in element that has exactly these attributes. */
const withAttributes = (attributes: Map<string, string>) => ({ getAttribute: (name: string) => attributes.get(name) ?? null }) as Element;

const everyTag = [WALKTHROUGH_ELEMENT, ...Object.values(STEP_ELEMENTS)] as string[];
const presence = Object.values(ELEMENT_SETTINGS)
  .filter((spec) => spec.kind === 'presence')
  .map((spec) => spec.attribute);

describe('element snippets on the docs page and in the README', () => {
  const tags = elementTags();

  test('there are snippets of many elements to check, the live examples among them', () => {
    expect(new Set(tags.map((t) => t.tag)).size).toBeGreaterThanOrEqual(10);
    expect(tags.filter((t) => t.where === 'docs.html (live)').length).toBeGreaterThanOrEqual(10);
  });

  test.each(elementTags().map((t) => [`${t.where}: <${t.tag} ${[...t.attributes].map(([n, v]) => `${n}="${v}"`).join(' ')}>`, t]))(
    '%s is taken as written',
    (_, { tag, attributes }) => {
      expect(everyTag).toContain(tag);
      const trains = tag === STEP_ELEMENTS.train;
      const known = [...(trains ? Object.values(TRAIN_ATTRIBUTES) : OBSERVED_ATTRIBUTES), 'controls', 'theme', ...presence];
      for (const name of attributes.keys()) expect(known, `${tag} reads ${name}`).toContain(name);
      const element = withAttributes(attributes);
      const validated = trains ? trainingFromAttributes(element) : settingsFromAttributes(element);
      expect(validated.notices).toEqual([]);
      expect(parseControls(attributes.get('controls') ?? null).notices).toEqual([]);
      expect(themeNotices(attributes.get('theme') ?? null)).toEqual([]);
    },
  );
});

describe('iframe snippets', () => {
  const urls = snippets().flatMap(({ where, code }) =>
    [...code.matchAll(/embed\.html\?([^"'\s)]+)/g)].map(([, query]) => ({ where, query: decodeHtml(query) })),
  );

  test('there is one in each document', () => {
    expect(new Set(urls.map((url) => url.where))).toEqual(new Set(['docs.html', 'README.md']));
  });

  test.each(urls.map((url) => [`${url.where}: embed.html?${url.query}`, url.query]))('%s names a step and valid settings', (_, query) => {
    const params = new URLSearchParams(query);
    expect(embedStep(params.get('step')).known).toBe(true);
    params.delete('step');
    expect(settingsFromParams(params).notices).toEqual([]);
  });
});

describe('script and style snippets', () => {
  const docsSnippets = () => snippets().filter((snippet) => snippet.where === 'docs.html');

  test('the iframe-resizing listener sizes the embedded frame from its own origin only', () => {
    const [script] = docsSnippets().filter(({ code }) => code.includes("addEventListener('message'"));
    expect(script, 'the docs page shows a listener for the frame’s height').toBeDefined();
    const window = new Window({ url: 'https://host.example/article.html' });
    try {
      window.document.body.innerHTML = '<iframe src="https://YOUR-HOST/embed.html?step=softmax" height="640"></iframe>';
      // The snippet as an author pastes it, with the page's own globals.
      new Function('addEventListener', 'document', script.code)(window.addEventListener.bind(window), window.document);
      const frame = window.document.querySelector('iframe')!;
      const post = (origin: string, data: unknown) => window.dispatchEvent(new window.MessageEvent('message', { origin, data }));
      post('https://YOUR-HOST', { type: 'attention-by-hand:resize', height: 812 });
      expect(frame.getAttribute('height')).toBe('812');
      post('https://elsewhere.example', { type: 'attention-by-hand:resize', height: 5 });
      post('https://YOUR-HOST', { type: 'something-else', height: 5 });
      expect(frame.getAttribute('height')).toBe('812');
    } finally {
      window.close();
    }
  });

  test('the styling snippet sets custom properties the styles read and names parts the elements have', () => {
    const [css] = docsSnippets().filter(({ code }) => code.includes('::part('));
    expect(css, 'the docs page shows a styling snippet').toBeDefined();
    const styles = (readdirSync(join(root, 'web/src'), { recursive: true }) as string[])
      .filter((path) => path.endsWith('.css'))
      .map((path) => read(`web/src/${path}`))
      .join('\n');
    const properties = [...css.code.matchAll(/(--abh-[\w-]+)\s*:/g)].map(([, name]) => name);
    expect(properties.length).toBeGreaterThan(3);
    for (const name of properties) expect(styles, name).toContain(`var(${name}`);
    const sources = (readdirSync(join(root, 'web/src'), { recursive: true }) as string[])
      .filter((path) => path.endsWith('.ts'))
      .map((path) => read(`web/src/${path}`))
      .join('\n');
    const parts = [...css.code.matchAll(/::part\(([\w-]+)\)/g)].map(([, name]) => name);
    expect(parts.length).toBeGreaterThan(0);
    for (const name of parts) expect(sources, name).toContain(`part: '${name}'`);
  });
});

describe('commands', () => {
  test('every `npm run`, `npm start` and `npm test` the README, tests/README and the docs page give is a script of package.json', () => {
    const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
    const text = ['README.md', 'tests/README.md', 'web/docs.html'].map(read).join('\n');
    const named = [...text.matchAll(/npm (?:run ([\w:-]+)|(start|test)\b)/g)].map(([, script, short]) => script ?? short);
    expect(named.length).toBeGreaterThan(15);
    expect([...new Set(named)].filter((name) => !scripts.includes(name))).toEqual([]);
  });
});
