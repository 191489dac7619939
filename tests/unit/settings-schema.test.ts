// One source of truth for the settings (web/src/settings-schema.ts): validation, the URL and the attributes
// read it, and every description of it is generated from it. This fails when the tables of the README or
// web/docs/*.md or the docs page's markers differ from the schema, when a declared range
// or default is not the one validation applies, or when the manifest misses an attribute. The .d.ts's attribute interfaces are proved identical to
// the schema's computed types by tests/unit/package-declarations.check.ts (package.test.ts).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { OBSERVED_ATTRIBUTES, SETTING_ATTRIBUTES, TRAINING_OBSERVED_ATTRIBUTES } from '../../web/src/elements/attributes';
import { DEFAULT_SETTINGS, settingsFromParams, settingsToParams, validateSettings, type Settings } from '../../web/src/settings';
import { ELEMENT_SETTINGS, TRAIN_SETTINGS, WALKTHROUGH_SETTINGS, type SettingSpec } from '../../web/src/settings-schema';
import {
  DEFAULT_TRAIN_SETTINGS,
  TRAIN_ATTRIBUTES,
  TRAIN_PARAMS,
  validateTrainSettings,
  type TrainSettings,
} from '../../web/src/features/training/train-settings';
import { fillDocsMarkers } from '../../web/tooling/docs-page';
import { elementsManifest } from '../../web/tooling/package-declarations';
import {
  docsSections,
  elementList,
  elementRows,
  manifestAttributes,
  markdownSections,
  trainRows,
  walkthroughRows,
  withSections,
} from '../../web/tooling/settings-docs';

const root = resolve(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The settings validation checks by range alone (the shown head's bound is the head count). */
const ranged = (schema: Record<string, SettingSpec>) =>
  Object.entries(schema).filter(
    (entry): entry is [string, SettingSpec & { kind: 'whole' | 'number' }] =>
      (entry[1].kind === 'whole' || entry[1].kind === 'number') && Number.isFinite(entry[1].max),
  );

describe('validation reads the schema', () => {
  test('the defaults are the declared ones, and they validate without a notice', () => {
    for (const [key, spec] of Object.entries(WALKTHROUGH_SETTINGS)) expect(DEFAULT_SETTINGS[key as keyof Settings], key).toBe(spec.default);
    for (const [key, spec] of Object.entries(TRAIN_SETTINGS))
      expect(DEFAULT_TRAIN_SETTINGS[key as keyof TrainSettings], key).toBe(spec.default);
    expect(validateSettings({ ...DEFAULT_SETTINGS })).toEqual({ settings: DEFAULT_SETTINGS, notices: [] });
    expect(validateTrainSettings({ ...DEFAULT_TRAIN_SETTINGS })).toEqual({ settings: DEFAULT_TRAIN_SETTINGS, notices: [] });
    // The documented defaults are the code's: weights example (with its three choices), one head.
    expect(walkthroughRows().find((row) => row.key === 'weights')).toMatchObject({
      defaultText: '`example`',
      accepts: '`example`, `trained`, `random`',
    });
    expect(walkthroughRows().find((row) => row.key === 'heads')).toMatchObject({ defaultText: String(DEFAULT_SETTINGS.heads) });
  });

  test('each declared range is the one a value is clamped to, with a notice naming the setting', () => {
    // Random weights and a d_model every head count divides, so only the range itself acts.
    for (const [key, spec] of ranged(WALKTHROUGH_SETTINGS)) {
      const base: Settings = { ...DEFAULT_SETTINGS, weights: 'random', dModel: 64 };
      const over = validateSettings({ [key]: spec.max + 1 }, base);
      expect(over.settings[key as keyof Settings], key).toBe(spec.max);
      expect(over.notices[0], key).toContain(`${spec.label} must be from ${spec.min} to ${spec.max}`);
      const under = validateSettings({ [key]: spec.min - 1 }, base);
      expect(under.settings[key as keyof Settings], key).toBe(spec.min);
    }
    for (const [key, spec] of ranged(TRAIN_SETTINGS)) {
      const base: TrainSettings = { ...DEFAULT_TRAIN_SETTINGS, dModel: 64, heads: 1 };
      const over = validateTrainSettings({ [key]: spec.max + 1 }, base);
      expect(over.settings[key as keyof TrainSettings], key).toBe(spec.max);
      expect(over.notices[0], key).toContain(`${spec.label} must be from ${spec.min} to ${spec.max}`);
    }
  });

  test('each choice setting refuses a word outside its choices, naming them', () => {
    const choices = (schema: Record<string, SettingSpec>) => Object.entries(schema).filter(([, spec]) => spec.kind === 'choice');
    for (const [key, spec] of choices(WALKTHROUGH_SETTINGS)) {
      const { settings, notices } = validateSettings({ [key]: 'nonsense' });
      expect(settings[key as keyof Settings], key).toBe(spec.default);
      expect(notices[0], key).toContain(`${spec.label} must be`);
    }
    for (const [key, spec] of choices(TRAIN_SETTINGS)) {
      const { settings, notices } = validateTrainSettings({ [key]: 'nonsense' });
      expect(settings[key as keyof TrainSettings], key).toBe(spec.default);
      expect(notices[0], key).toContain(`${spec.label} must be`);
    }
  });

  test('URL parameters and attributes are the declared ones, each a setting that round-trips', () => {
    expect(Object.keys(SETTING_ATTRIBUTES)).toEqual(Object.values(WALKTHROUGH_SETTINGS).map((spec) => spec.attribute));
    expect(Object.values(SETTING_ATTRIBUTES)).toEqual(Object.values(WALKTHROUGH_SETTINGS).map((spec) => spec.param));
    expect(Object.values(TRAIN_PARAMS)).toEqual(Object.values(TRAIN_SETTINGS).map((spec) => spec.param));
    expect(Object.values(TRAIN_ATTRIBUTES)).toEqual(Object.values(TRAIN_SETTINGS).map((spec) => spec.attribute));
    const elementOnly = Object.values(ELEMENT_SETTINGS).filter((spec) => spec.scope === 'every' && spec.kind !== 'presence');
    expect(OBSERVED_ATTRIBUTES).toEqual([...Object.keys(SETTING_ATTRIBUTES), ...elementOnly.map((spec) => spec.attribute)]);
    expect(TRAINING_OBSERVED_ATTRIBUTES).toEqual([...Object.values(TRAIN_ATTRIBUTES), ...elementOnly.map((spec) => spec.attribute)]);
    // Every setting but the defaults' is written to a link and read back the same.
    const changed: Settings = {
      ...DEFAULT_SETTINGS,
      weights: 'random',
      dModel: 16,
      heads: 4,
      head: 2,
      causal: true,
      scale: false,
      seed: 7,
      block: 3,
    };
    const params = settingsToParams(changed);
    for (const key of ['dModel', 'heads', 'head', 'causal', 'scale', 'seed', 'block', 'weights'] as const)
      expect(params.has(WALKTHROUGH_SETTINGS[key].param), key).toBe(true);
    expect(settingsFromParams(params)).toEqual({ settings: changed, notices: [] });
  });
});

describe('every description is generated from the schema', () => {
  test('the tables of the README and web/docs/*.md are what `npm run docs:readme` writes', () => {
    for (const [file, sections] of Object.entries(markdownSections())) {
      const text = read(file);
      expect(withSections(text, sections), `${file} differs from the schema: run \`npm run docs:readme\``).toBe(text);
    }
    const settingsPage = read('web/docs/settings.md');
    for (const row of [...walkthroughRows(), ...trainRows()]) expect(settingsPage).toContain(`| \`${row.param}\` | \`${row.attribute}\` |`);
    for (const row of elementList()) expect(read('README.md')).toContain(`| \`<${row.tag}>\` |`);
  });

  test('the docs page has a marker for each generated table and no hand-written table of its own', () => {
    const source = read('web/docs.html');
    expect(source).not.toMatch(/<table/);
    const page = fillDocsMarkers(source, docsSections());
    expect(page).not.toMatch(/<!-- docs:/);
    for (const row of [...walkthroughRows(), ...trainRows(), ...elementRows('every'), ...elementRows('walkthrough')])
      expect(page).toContain(`<th scope="row"><code>${row.attribute}</code></th>`);
    for (const row of [...walkthroughRows(), ...trainRows()])
      expect(page).toContain(`<th scope="row"><code>${row.attribute}</code></th><td><code>${row.param}</code></td>`);
    for (const row of elementList()) expect(page).toContain(`<th scope="row"><code>&lt;${row.tag}&gt;</code></th>`);
    // The defaults the old hand-written table had wrong: weights is example (of three), heads 1.
    expect(page).toMatch(
      /<code>weights<\/code><\/th><td>.*<\/td><td><code>example<\/code><\/td><td><code>example<\/code>, <code>trained<\/code>, <code>random<\/code><\/td>/,
    );
    expect(page).toMatch(/<code>heads<\/code><\/th><td><code>heads<\/code><\/td><td>number of heads[^<]*<\/td><td>1<\/td>/);
    expect(() => fillDocsMarkers(`${source}<!-- docs:nothing -->`, docsSections())).toThrow(/no generated section/);
  });

  test('the manifest lists every schema attribute on the elements it applies to, with its type and default', () => {
    const manifest = JSON.parse(elementsManifest(manifestAttributes())) as {
      modules: {
        declarations: { name: string; tagName?: string; attributes?: { name: string; type: { text: string }; default: string }[] }[];
      }[];
    };
    const declarations = manifest.modules[0].declarations;
    const names = (name: string) => (declarations.find((d) => d.name === name)?.attributes ?? []).map((a) => a.name);
    const every = [...Object.values(WALKTHROUGH_SETTINGS), ...Object.values(ELEMENT_SETTINGS).filter((spec) => spec.scope === 'every')];
    expect(names('AttentionElement')).toEqual(every.map((spec) => spec.attribute));
    expect(names('AttentionWalkthroughElement')).toEqual(
      expect.arrayContaining(
        Object.values(ELEMENT_SETTINGS)
          .filter((spec) => spec.scope === 'walkthrough')
          .map((spec) => spec.attribute),
      ),
    );
    expect(names('AttentionTrainElement')).toEqual(
      [...Object.values(TRAIN_SETTINGS), ...Object.values(ELEMENT_SETTINGS).filter((spec) => spec.scope === 'every')].map(
        (spec) => spec.attribute,
      ),
    );
    const weights = declarations.find((d) => d.name === 'AttentionElement')!.attributes!.find((a) => a.name === 'weights')!;
    expect(weights).toMatchObject({ type: { text: "'example' | 'trained' | 'random'" }, default: '`example`' });
  });
});
