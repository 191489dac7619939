// Every description of the settings and the elements that is not code, generated from the settings schema
// (web/src/settings-schema.ts) and the element registry: the tables of the README and web/docs/*.md
// (`npm run docs:readme` writes them between marker comments; one more, step 1's reader models, from their records), the
// docs page's tables (at build time, web/tooling/docs-page.ts),
// the attribute interfaces of the package's .d.ts and the attributes of its Custom Elements Manifest
// (web/tooling/package-declarations.ts). tests/unit/settings-schema.test.ts fails when a copy differs.
//
// Loaded through Vite (web/tooling/load-web-module.ts): the schema reads the engine's limits from the C++
// headers with `?raw` imports, which only Vite resolves.
import { PREFIX as ELEMENT_PREFIX } from '../src/embed-step';
import { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from '../src/elements/registry';
import { READER_MODELS, type ReaderModelRecord } from '../src/model/reader';
import { ELEMENT_SETTINGS, TRAIN_SETTINGS, WALKTHROUGH_SETTINGS, type ElementScope, type SettingSpec } from '../src/settings-schema';
import { STEPS } from '../src/steps/index';
import { TASK_RECIPES } from '../src/features/training/train-settings';

/** One setting as every description lists it. */
export interface SettingRow {
  key: string;
  attribute: string;
  param: string | null;
  description: string;
  defaultText: string;
  accepts: string;
  /** Its TypeScript type as an attribute (the .d.ts, the manifest). */
  type: string;
}

const FLAG_WORDS = '`1`/`0`, `on`/`off`, `true`/`false`, `yes`/`no`';

function defaultOf(spec: SettingSpec): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  switch (spec.kind) {
    case 'flag':
      return spec.default ? 'on' : 'off';
    case 'presence':
      return 'absent';
    case 'whole':
    case 'number':
      return String(spec.default);
    default:
      return spec.default === '' ? 'none' : `\`${spec.default}\``;
  }
}

function acceptsOf(spec: SettingSpec): string {
  if (spec.accepts !== undefined) return spec.accepts;
  const listed = (words: readonly string[]) => words.map((word) => `\`${word}\``).join(', ');
  switch (spec.kind) {
    case 'whole':
    case 'number':
      return spec.max === Infinity ? `${spec.min} or more` : `${spec.min}–${spec.max}`;
    case 'flag':
      return `${FLAG_WORDS}; an attribute present without a value is on`;
    case 'presence':
      return 'present (on) or absent';
    case 'choice':
      return listed(spec.choices);
    case 'list':
      return `\`all\`, \`none\`, or a space-separated list of ${listed(spec.choices)}`;
    case 'text':
      return 'any text';
  }
}

function typeOf(spec: SettingSpec): string {
  switch (spec.kind) {
    case 'whole':
    case 'number':
      return 'number | string';
    case 'flag':
      return 'AttentionFlag';
    case 'presence':
      return "boolean | ''";
    case 'choice':
      return spec.choices.map((choice) => `'${choice}'`).join(' | ');
    default:
      return 'string';
  }
}

function rowsOf(
  schema: Record<string, SettingSpec>,
  defaultText: (key: string, spec: SettingSpec) => string = (_, spec) => defaultOf(spec),
) {
  return Object.entries(schema).map(([key, spec]): SettingRow => ({
    key,
    attribute: spec.attribute,
    param: spec.param,
    description: spec.description,
    defaultText: defaultText(key, spec),
    accepts: acceptsOf(spec),
    type: typeOf(spec),
  }));
}

/** The walkthrough's settings: URL parameters and the attributes of every element but <attention-train>. */
export const walkthroughRows = (): SettingRow[] => rowsOf(WALKTHROUGH_SETTINGS);

/** A training run's settings; a default a task changes says so ("0.003 (induction 0.01)"). */
export const trainRows = (): SettingRow[] =>
  rowsOf(TRAIN_SETTINGS, (key, spec) => {
    const own = Object.entries(TASK_RECIPES)
      .filter(([, recipe]) => key in recipe && recipe[key as keyof typeof recipe] !== spec.default)
      .map(([task, recipe]) => `${task} ${recipe[key as keyof typeof recipe]}`);
    return own.length > 0 ? `${defaultOf(spec)} (${own.join(', ')})` : defaultOf(spec);
  });

/** The element-only settings of `scope`'s elements (`every`: all of them, `walkthrough`: its own). */
export const elementRows = (scope: ElementScope): SettingRow[] =>
  rowsOf(Object.fromEntries(Object.entries(ELEMENT_SETTINGS).filter(([, spec]) => spec.scope === scope)));

/** Each element with what it shows and the `embed.html?step=` names that show it. */
export interface ElementRow {
  tag: string;
  shows: string;
  stepNames: string[];
}

export function elementList(): ElementRow[] {
  const steps = Object.entries(STEP_ELEMENTS).map(([id, tag]) => {
    const step = STEPS.find((candidate) => candidate.id === id);
    if (!step) throw new Error(`settings-docs: the registry names a step ${id} that steps/index.ts does not have`);
    return { step, tag };
  });
  steps.sort((a, b) => a.step.number - b.step.number);
  const names = (tag: string, ...ids: string[]) => [...new Set([...ids, tag.slice(ELEMENT_PREFIX.length)])];
  return [
    { tag: WALKTHROUGH_ELEMENT, shows: 'every step, with a table of contents', stepNames: names(WALKTHROUGH_ELEMENT, 'all') },
    ...steps.map(({ step, tag }) => ({ tag, shows: `${step.number}. ${step.title}`, stepNames: names(tag, step.id) })),
  ];
}

// ---------------------------------------------------------------------------------------------------
// Markdown (the README)

const cell = (text: string) => text.replace(/\|/g, '\\|');
const markdownTable = (header: string[], rows: string[][]) =>
  [header, header.map(() => '---'), ...rows].map((row) => `| ${row.map(cell).join(' | ')} |`).join('\n');

/** Step 1's two reader models as their records (web/src/model/reader*.json) state them. */
function readerModelTable(): string {
  const kinds = [READER_MODELS.bidirectional, READER_MODELS.causal];
  const thousands = (n: number) => n.toLocaleString('en-US');
  const score = (s: { correct: number; sentences: number }) => `${((100 * s.correct) / s.sentences).toFixed(1)} %`;
  const row = (label: string, of: (r: Readonly<ReaderModelRecord>) => string) => [label, ...kinds.map(of)];
  const pairs = (r: Readonly<ReaderModelRecord>) => score({ correct: r.minimalPairs.bothRight, sentences: r.minimalPairs.pairs });
  const head = ({ resolvingHead: h }: Readonly<ReaderModelRecord>) =>
    `layer ${h.layer + 1}, head ${h.head + 1} (${(100 * h.share).toFixed(1)} %)`;
  const counts = READER_MODELS.bidirectional; // both records count the same sets
  return markdownTable(
    ['', 'bidirectional', 'causal (at the last word)'],
    [
      row('shape', (r) => `${r.layers} layers × ${r.heads} heads, d_model ${r.dModel}, ${thousands(r.parameters)} parameters`),
      row('training', (r) => `${thousands(r.steps)} steps of ${r.batch}, ${r.frames} frames, ${thousands(r.vocabulary)} words`),
      row('file', (r) => `${thousands(r.bytes)} bytes (${r.quantization})`),
      row('words outside the vocabulary', (r) => {
        const u = r.unknownWords;
        return `${thousands(r.aliases.words)} read through WordNet aliases; in the hand-written set ${u.handwrittenAliased} aliased, ${u.handwrittenUnknown} unknown`;
      }),
      row(`generated, held-out words (${thousands(counts.heldoutWords.sentences)})`, (r) => score(r.heldoutWords)),
      row(`generated, held-out frames (${thousands(counts.heldoutFrames.sentences)})`, (r) => score(r.heldoutFrames)),
      row(`hand-written, \`tests/data/reader\` (${counts.handwritten.sentences})`, (r) => score(r.handwritten)),
      row(`minimal pairs, both right (${counts.minimalPairs.pairs})`, pairs),
      row('resolving head (mean weight on the antecedent)', head),
    ],
  );
}

/**
 * The generated sections of each Markdown page, by file (from the repository's root) and marker name:
 * `<!-- name -->` … `<!-- /name -->`. The README keeps the element list; the per-setting tables and the
 * reader models' table live on pages of their own under web/docs/, which the README links.
 */
export function markdownSections(): Record<string, Record<string, string>> {
  return {
    'README.md': {
      elements: markdownTable(
        ['element', 'shows', '`embed.html?step=`'],
        elementList().map((row) => [`\`<${row.tag}>\``, row.shows, row.stepNames.map((name) => `\`${name}\``).join(', ')]),
      ),
    },
    'web/docs/reader-model.md': { 'reader-models': readerModelTable() },
    'web/docs/settings.md': {
      'settings-url': markdownTable(
        ['parameter', 'attribute', 'meaning', 'default', 'accepted'],
        walkthroughRows().map((row) => [`\`${row.param}\``, `\`${row.attribute}\``, row.description, row.defaultText, row.accepts]),
      ),
      'settings-train': markdownTable(
        ['parameter', 'attribute', 'meaning', 'default', 'accepted'],
        trainRows().map((row) => [`\`${row.param}\``, `\`${row.attribute}\``, row.description, row.defaultText, row.accepts]),
      ),
      'settings-elements': markdownTable(
        ['attribute', 'elements', 'meaning', 'default', 'accepted'],
        (['every', 'walkthrough'] as const).flatMap((scope) =>
          elementRows(scope).map((row) => [
            `\`${row.attribute}\``,
            scope === 'every' ? 'every element' : `\`<${WALKTHROUGH_ELEMENT}>\``,
            row.description,
            row.defaultText,
            row.accepts,
          ]),
        ),
      ),
    },
  };
}

/** `text` with each marked section replaced by its generated content. */
export function withSections(text: string, sections: Record<string, string>, open = (name: string) => `<!-- ${name} -->`): string {
  let result = text;
  for (const [name, content] of Object.entries(sections)) {
    const start = open(name);
    const end = open(`/${name}`);
    const from = result.indexOf(start);
    const to = result.indexOf(end);
    if (from < 0 || to < from) throw new Error(`settings-docs: no ${start} … ${end} section`);
    result = `${result.slice(0, from + start.length)}\n${content}\n${result.slice(to)}`;
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------
// HTML (the docs page)

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Prose with `code` marks as HTML. */
const html = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

function htmlTable(caption: string, header: string[], rows: string[][]): string {
  const head = header.map((name) => `<th scope="col">${name}</th>`).join('');
  const body = rows.map(([first, ...rest]) => `<tr><th scope="row">${first}</th>${rest.map((text) => `<td>${text}</td>`).join('')}</tr>`);
  return `<table class="doc-table">\n  <caption>${caption}</caption>\n  <thead><tr>${head}</tr></thead>\n  <tbody>\n    ${body.join('\n    ')}\n  </tbody>\n</table>`;
}

/** Attributes with their meaning, default and accepted values; `withParam` adds the walkthrough URL's name of each. */
const attributeTable = (caption: string, rows: SettingRow[], withParam = false) =>
  htmlTable(
    caption,
    ['Attribute', ...(withParam ? ['URL'] : []), 'Meaning', 'Default', 'Accepted'],
    rows.map((row) => [
      `<code>${row.attribute}</code>`,
      ...(withParam ? [`<code>${row.param ?? ''}</code>`] : []),
      html(row.description),
      html(row.defaultText),
      html(row.accepts),
    ]),
  );

/** The docs page's generated sections, by marker name (docs-page.ts puts each in place of its marker). */
export function docsSections(): Record<string, string> {
  return {
    'step-names': `<code>${Object.keys(STEP_ELEMENTS).join(' ')}</code>`,
    elements: htmlTable(
      'One element per step, plus the whole walkthrough',
      ['Element', 'Shows'],
      elementList().map((row) => [`<code>${escapeHtml(`<${row.tag}>`)}</code>`, html(row.shows)]),
    ),
    attributes: [
      attributeTable(
        'Attributes of every element but <code>&lt;attention-train&gt;</code>, and the walkthrough’s URL parameters',
        walkthroughRows(),
        true,
      ),
      attributeTable(
        'Attributes of <code>&lt;attention-train&gt;</code> (a training run’s settings instead of the above), and their names in the main page’s URL',
        trainRows(),
        true,
      ),
      attributeTable('Attributes of every element, <code>&lt;attention-train&gt;</code> included', elementRows('every')),
      attributeTable(`Attributes of <code>&lt;${WALKTHROUGH_ELEMENT}&gt;</code> only`, elementRows('walkthrough')),
    ].join('\n'),
  };
}

// ---------------------------------------------------------------------------------------------------
// The package's declarations and manifest

const jsDoc = (text: string, indent: string) => `${indent}/** ${text.replace(/\*\//g, '*\\/')} */`;

function interfaceText(name: string, summary: string, rows: SettingRow[]): string {
  const members = rows.map(
    (row) =>
      `${jsDoc(`${row.description} (default: ${row.defaultText}; accepted: ${row.accepts})`, '    ')}\n    ${/^[a-z]+$/.test(row.attribute) ? row.attribute : `'${row.attribute}'`}?: ${row.type};`,
  );
  return `${jsDoc(summary, '')}\nexport interface ${name} {\n${members.join('\n')}\n}`;
}

/** The attribute interfaces of the package's declarations, by name: what elements/attribute-types.ts computes, spelled out. */
export function attributeInterfaces(): Record<string, string> {
  const every = [...walkthroughRows(), ...elementRows('every')];
  return {
    AttentionElementAttributes: interfaceText('AttentionElementAttributes', 'The attributes of every element.', every),
    AttentionWalkthroughAttributes: interfaceText('AttentionWalkthroughAttributes', 'The attributes of <attention-walkthrough>.', [
      ...every,
      ...elementRows('walkthrough'),
    ]),
    AttentionTrainAttributes: interfaceText(
      'AttentionTrainAttributes',
      'The attributes of <attention-train>: a training run’s settings (the main page’s link spells them train_task, …).',
      [...trainRows(), ...elementRows('every')],
    ),
  };
}

/** A Custom Elements Manifest attribute. */
export interface ManifestAttribute {
  name: string;
  description: string;
  type: { text: string };
  default: string;
}

const manifestAttribute = (row: SettingRow): ManifestAttribute => ({
  name: row.attribute,
  description: `${row.description}; accepted: ${row.accepts}`,
  type: { text: row.type },
  default: row.defaultText,
});

/** The manifest's attributes: every element's, the walkthrough's own, and <attention-train>'s instead of every element's. */
export function manifestAttributes(): { every: ManifestAttribute[]; walkthrough: ManifestAttribute[]; train: ManifestAttribute[] } {
  return {
    every: [...walkthroughRows(), ...elementRows('every')].map(manifestAttribute),
    walkthrough: elementRows('walkthrough').map(manifestAttribute),
    train: [...trainRows(), ...elementRows('every')].map(manifestAttribute),
  };
}
