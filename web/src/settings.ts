// The walkthrough's settings: the one validation boundary that every outside value passes through (URL
// parameters, element attributes, the controls), and the URL they are written to. Each setting, its
// parameter, range and default are declared once in settings-schema.ts; this module adds the rules that
// relate settings to each other (heads dividing d_model, the shown head, sizes the mask and edits fit).
// Pure: no DOM, no engine, so it is unit-tested directly.
import { EXAMPLE_D_K, EXAMPLE_D_MODEL, EXAMPLE_TOKENS } from './article-example';
import { isCustomMask, validateEdits, validateMask } from './features/hands-on/hands-on-settings';
import { SHIPPED_MODEL } from './model/shipped';
import { checkChoice, checkSetting, checkWhole, clampWhole, INVISIBLE, parseFlag, type RawValue } from './setting-checks';
import { ARTICLE_SENTENCE, defaultsOf, LIMITS, paramsOf, WALKTHROUGH_SETTINGS, type SettingsOf } from './settings-schema';

export { ARTICLE_SENTENCE, LIMITS, WEIGHTS_CHOICES } from './settings-schema';
export { clampWhole, parseFlag, shorten, type RawValue } from './setting-checks';

/** The walkthrough's settings, one per entry of WALKTHROUGH_SETTINGS (settings-schema.ts, which documents each). */
export type Settings = SettingsOf<typeof WALKTHROUGH_SETTINGS>;
export type WeightsChoice = Settings['weights'];

export const DEFAULT_SETTINGS: Readonly<Settings> = defaultsOf(WALKTHROUGH_SETTINGS);

/** URL parameter names: short, stable, documented in the README (generated from the schema). */
const PARAMS = paramsOf(WALKTHROUGH_SETTINGS);
const SETTING_KEYS = Object.keys(WALKTHROUGH_SETTINGS) as (keyof Settings)[];

/** The same settings, value by value (each setting is a number, a string or a flag). */
export function sameSettings(a: Readonly<Settings>, b: Readonly<Settings>): boolean {
  return SETTING_KEYS.every((key) => a[key] === b[key]);
}

/** d_model values the selector offers; a valid value from a URL is added to it. */
export const D_MODEL_CHOICES = [2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512];

export interface Preset {
  id: string;
  label: string;
  settings: Partial<Settings>;
}

export const PRESETS: readonly Preset[] = [
  {
    id: 'example',
    label: 'The article’s four-token example',
    settings: { weights: 'example', causal: false, scale: true, edits: '', mask: 'none' },
  },
  {
    id: 'article',
    label: 'The article’s sentence, random weights (d_model 8)',
    settings: { sentence: ARTICLE_SENTENCE, dModel: 8, heads: 1 },
  },
  { id: 'big-heads', label: 'The article’s multi-head shape (d_model 512, 8 heads of 64)', settings: { dModel: 512, heads: 8 } },
];

/** The most heads n tokens may have: h × n × n within LIMITS.maxHeadWeights. */
export function maxHeadsFor(tokens: number): number {
  return Math.max(1, Math.min(LIMITS.maxHeads, Math.floor(LIMITS.maxHeadWeights / Math.max(1, tokens) ** 2)));
}

/** Heads that divide d_model, up to the limits (for this many tokens): the only choices the UI offers. */
export function headChoices(dModel: number, tokens = 1): number[] {
  const choices: number[] = [];
  for (let h = 1; h <= Math.min(dModel, maxHeadsFor(tokens)); h++) if (dModel % h === 0) choices.push(h);
  return choices;
}

export interface TokenizeResult {
  tokens: string[];
  notices: string[];
}

/** One token per whitespace-separated word, punctuation kept with its word as in the article. */
export function tokenize(sentence: string): TokenizeResult {
  const notices: string[] = [];
  let text = sentence;
  const cut = text.length > LIMITS.maxSentenceChars;
  if (cut) {
    text = text.slice(0, LIMITS.maxSentenceChars);
    // Whole words only: a word cut in half would be a token the reader never wrote.
    if (!/\s/u.test(sentence[LIMITS.maxSentenceChars])) text = text.replace(/(?<=\s)\S+$/u, '');
  }
  const cleaned = text.replace(INVISIBLE, '');
  if (cleaned !== text) notices.push('Invisible and text-direction control characters were removed from the sentence.');
  let tokens = cleaned.split(/\s+/u).filter((t) => t.length > 0);
  if (tokens.some((t) => [...t].length > LIMITS.maxTokenChars)) {
    // maxTokenChars with the ellipsis, so a shortened word is not shortened (and reported) again
    // when the sentence is validated once more.
    tokens = tokens.map((t) => ([...t].length > LIMITS.maxTokenChars ? [...t].slice(0, LIMITS.maxTokenChars - 1).join('') + '…' : t));
    notices.push(`Words longer than ${LIMITS.maxTokenChars} characters were shortened.`);
  }
  // One notice for a sentence cut short, counting the words the reader gave (a paste of 5,000 words
  // says 5,000), whichever limit cut it.
  const given = () => (cut ? sentence.split(/\s+/u).filter((t) => t.length > 0).length : tokens.length);
  if (tokens.length > LIMITS.maxTokens) {
    notices.push(`Only the first ${LIMITS.maxTokens} of ${given()} words are used: the page shows at most ${LIMITS.maxTokens} tokens.`);
    tokens = tokens.slice(0, LIMITS.maxTokens);
  } else if (cut) {
    notices.push(`Only the first ${LIMITS.maxSentenceChars} characters of the sentence are used (${tokens.length} of ${given()} words).`);
  }
  if (tokens.length === 0) {
    notices.push('The sentence had no words, so the article’s sentence is used instead.');
    tokens = ARTICLE_SENTENCE.split(' ');
  }
  return { tokens, notices };
}

export interface ValidatedSettings {
  settings: Settings;
  /** What was changed and why, in words for the reader. Empty when everything was valid. */
  notices: string[];
}

function parseWeights(raw: RawValue, fallback: WeightsChoice, notices: string[]): WeightsChoice {
  const kept = fallback === 'example' ? 'the article’s example is used' : `the ${fallback} weights are used`;
  return checkChoice(WALKTHROUGH_SETTINGS.weights, raw, fallback, notices, kept);
}

/** The settings that shape and pick the random weights; the trained model has its own shape and no seed. */
const RANDOM_WEIGHTS_SETTINGS = ['dModel', 'heads', 'seed'] as const;

/**
 * A change that sets d_model, heads or the seed without saying which weights asks for random ones (the
 * only weights those settings act on): old links, an author's `heads="4"`, the presets of the article's
 * shapes. A sentence given while the article's example is shown asks for that sentence in every step,
 * read by the trained model. A `weights` given alongside wins.
 */
export function withImpliedWeights<T extends Partial<Record<keyof Settings, unknown>>>(
  raw: T,
  current: Pick<Settings, 'weights' | 'sentence'> = DEFAULT_SETTINGS,
): T {
  if (raw.weights !== undefined && raw.weights !== null) return raw;
  if (RANDOM_WEIGHTS_SETTINGS.some((key) => raw[key] !== undefined && raw[key] !== null)) return { ...raw, weights: 'random' };
  const newSentence = raw.sentence !== undefined && raw.sentence !== null && String(raw.sentence) !== current.sentence;
  return current.weights === 'example' && newSentence ? { ...raw, weights: 'trained' } : raw;
}

/** The pipeline's shape as the page presents it: d_model, the number of heads and each head's dₖ. */
export interface Shape {
  dModel: number;
  heads: number;
  dK: number;
}

/**
 * The shape the pipeline runs at: the article's example's one head (dₖ 4 on d_model 8), the shipped
 * model's with trained weights, the reader's with random ones.
 */
export function shapeOf(settings: Pick<Settings, 'weights' | 'dModel' | 'heads'>): Shape {
  if (settings.weights === 'example') return { dModel: EXAMPLE_D_MODEL, heads: 1, dK: EXAMPLE_D_K };
  const { dModel, heads } = settings.weights === 'trained' ? SHIPPED_MODEL : settings;
  return { dModel, heads, dK: dModel / heads };
}

/**
 * The settings as the figures show them: d_model and the heads of the shape the pipeline runs at (the
 * trained model's 32 and 2, the article's example's 8 and 1, the reader's with random weights), so
 * `element.config` never reports a shape the element is not showing.
 */
export function shownSettings(settings: Settings): Settings {
  const { dModel, heads } = shapeOf(settings);
  return { ...settings, dModel, heads };
}

/** How many tokens the worked steps show: the example's four, or the sentence's. */
export function workedTokenCount(settings: Pick<Settings, 'weights' | 'sentence'>): number {
  return settings.weights === 'example' ? EXAMPLE_TOKENS.length : tokenize(settings.sentence).tokens.length;
}

/**
 * The validation boundary. Takes loosely typed values (URL strings, attributes, partial updates),
 * returns settings that the engine accepts, and says what it changed.
 */
export function validateSettings(raw: Partial<Record<keyof Settings, RawValue>>, base: Settings = DEFAULT_SETTINGS): ValidatedSettings {
  const notices: string[] = [];
  const sentence = raw.sentence === undefined || raw.sentence === null ? base.sentence : String(raw.sentence);
  const spec = WALKTHROUGH_SETTINGS;
  const dModel = checkWhole(spec.dModel, raw.dModel, base.dModel, notices);
  const requestedHeads = checkWhole(spec.heads, raw.heads, base.heads, notices);
  const tokenized = tokenize(sentence);
  const n = tokenized.tokens.length;
  let heads = requestedHeads;
  if (dModel % heads !== 0 || heads > dModel) {
    const choices = headChoices(dModel);
    heads = choices.reduce((best, h) => (Math.abs(h - requestedHeads) < Math.abs(best - requestedHeads) ? h : best), choices[0]);
    notices.push(
      `${requestedHeads} heads do not divide d_model = ${dModel}, so ${heads} ${heads === 1 ? 'head is' : 'heads are'} used (dₖ = ${dModel / heads}).`,
    );
  }
  if (heads > maxHeadsFor(n)) {
    const fewer = headChoices(dModel, n).at(-1)!;
    notices.push(
      `${n} tokens allow at most ${maxHeadsFor(n)} heads (each head keeps ${n} × ${n} weights), so ${fewer} ${fewer === 1 ? 'head is' : 'heads are'} used instead of ${heads}.`,
    );
    heads = fewer;
  }
  const weights = parseWeights(raw.weights, base.weights, notices);
  // The shown head, the mask and the edits refer to the tokens and matrices the worked steps run with
  // (the example's four tokens; the model's matrices, when trained).
  const shape = shapeOf({ weights, dModel, heads });
  const workedTokens = weights === 'example' ? EXAMPLE_TOKENS.length : n;
  const causal = parseFlag(raw.causal, spec.causal.label, base.causal, notices);
  const scale = parseFlag(raw.scale, spec.scale.label, base.scale, notices);
  const seed = checkWhole(spec.seed, raw.seed, base.seed, notices);
  // 0-based here; links and attributes count from 1 and are checked in settingsFromParams. No upper
  // bound of its own: the head count is the bound, checked (and explained once) just below.
  let head = clampWhole(raw.head, `${spec.head.label} (counting from 0)`, spec.head.min, spec.head.max, base.head, notices);
  if (head >= shape.heads) {
    const had = shape.heads;
    notices.push(
      `There ${had === 1 ? 'is only 1 head' : `are only ${had} heads`}${weights === 'trained' ? ' in the trained model' : weights === 'example' ? ' in the article’s example' : ''}, so head ${had} is shown instead of head ${head + 1}.`,
    );
    head = had - 1;
  }
  const block = checkWhole(spec.block, raw.block, base.block, notices);
  notices.push(...tokenized.notices);
  const finalSentence = tokenized.notices.length > 0 ? tokenized.tokens.join(' ') : sentence;
  // The hands-on settings depend on the sizes: checked against this sentence's tokens and d_model.
  let mask = validateMask(raw.mask ?? base.mask, workedTokens, notices);
  let maskedCausal = causal;
  if (mask === 'causal') {
    // mask=causal is the causal flag: one setting, one way to write it.
    maskedCausal = true;
    mask = 'none';
  } else if (isCustomMask(mask) && causal) {
    notices.push('A custom mask replaces the causal mask, so the causal checkbox is off while it is in force.');
    maskedCausal = false;
  }
  const edits = validateEdits(raw.edits ?? base.edits, workedTokens, shape.dModel, notices);
  const checked: Partial<Settings> = {
    sentence: finalSentence,
    dModel,
    heads,
    causal: maskedCausal,
    scale,
    seed,
    head,
    block,
    edits,
    mask,
    weights,
  };
  // A setting with no rule relating it to the others is checked by its kind alone (settings-schema.ts).
  for (const key of SETTING_KEYS)
    if (!(key in checked)) Object.assign(checked, { [key]: checkSetting(spec[key], raw[key], base[key] as never, notices) });
  return { settings: checked as Settings, notices };
}

export function settingsFromParams(params: URLSearchParams, base: Settings = DEFAULT_SETTINGS): ValidatedSettings {
  const raw: Partial<Record<keyof Settings, RawValue>> = {};
  const notices: string[] = [];
  for (const key of SETTING_KEYS) {
    const value = params.get(PARAMS[key]);
    if (value === null) continue;
    // Heads are counted from 1 in links, as on the page: checked (and explained) in those terms here.
    raw[key] = key === 'head' ? clampWhole(value, WALKTHROUGH_SETTINGS.head.label, 1, Infinity, base.head + 1, notices) - 1 : value;
  }
  const validated = validateSettings(withImpliedWeights(raw), base);
  const unused = RANDOM_WEIGHTS_SETTINGS.filter((key) => raw[key] !== undefined).map((key) => PARAMS[key]);
  if (validated.settings.weights !== 'random' && unused.length > 0) {
    const shape = shapeOf(validated.settings);
    const owner = validated.settings.weights === 'trained' ? 'the trained model has' : 'the article’s example has';
    notices.push(
      `${unused.join(' and ')} only ${unused.length === 1 ? 'applies' : 'apply'} to random weights; ${owner} d_model ${shape.dModel} and ${shape.heads} head${shape.heads === 1 ? '' : 's'}, so ${unused.length === 1 ? 'it was' : 'they were'} not used.`,
    );
  }
  return { settings: validated.settings, notices: [...notices, ...validated.notices] };
}

/** Only the settings that differ from the defaults, so a shared link stays short. */
export function settingsToParams(settings: Settings): URLSearchParams {
  const params = new URLSearchParams();
  // Read back, a sentence alone asks for the trained model (withImpliedWeights): the example says so itself.
  if (settings.weights === 'example' && settings.sentence !== DEFAULT_SETTINGS.sentence) params.set(PARAMS.weights, 'example');
  for (const key of SETTING_KEYS) {
    const value = settings[key];
    if (value === DEFAULT_SETTINGS[key]) continue;
    // Read back, they would ask for random weights (withImpliedWeights); the trained model does not use them.
    if (settings.weights !== 'random' && (RANDOM_WEIGHTS_SETTINGS as readonly string[]).includes(key)) continue;
    // A sentence of its own already asks for the trained model when read back.
    if (key === 'weights' && value === 'trained' && settings.sentence !== DEFAULT_SETTINGS.sentence) continue;
    if (key === 'head') params.set(PARAMS[key], String((value as number) + 1));
    else if (typeof value === 'boolean') params.set(PARAMS[key], value ? '1' : '0');
    else params.set(PARAMS[key], String(value));
  }
  return params;
}

/**
 * settingsToParams as a query string that keeps ':' and ',' readable (both are allowed in a query), so
 * a shared link reads edits=X.3.2:0.5,Wq.1.4:-0.25 rather than edits=X.3.2%3A0.5%2CWq.1.4%3A-0.25.
 */
export function settingsToQuery(settings: Settings): string {
  return settingsToParams(settings).toString().replace(/%3A/gi, ':').replace(/%2C/gi, ',');
}
