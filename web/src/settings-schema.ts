// Every setting a reader or an author can give, declared once: its URL parameter, its attribute, its
// type, its range or choices, its default, the name its notices use and one line saying what it does.
// Everything else reads this table: validation and the URL (settings.ts, features/training/train-settings.ts), the
// attributes (elements/attributes.ts), the package's types (elements/attribute-types.ts, and the
// generated .d.ts), the Custom Elements Manifest, the docs page's tables and the README's tables
// (web/tooling/settings-docs.ts; tests/unit/settings-schema.test.ts checks every copy). Ranges come from
// the engine's and the training core's own limits (engine/limits.ts), never retyped.
//
// Descriptions are one line of prose where `backticks` mark code: the README keeps them, the docs page
// turns them into <code>, the declarations keep them as they are.
// Length (~500 lines): a declarative table, one entry per setting; splitting it would split the one
// place every setting is declared.
import { EXAMPLE_D_K, EXAMPLE_D_MODEL } from './article-example';
import { ENGINE_LIMITS, TRAINING_LIMITS } from './engine/limits';
import type { TrainingTask } from './engine/training';
import { EDIT_LIMITS, EDIT_MATRICES } from './features/hands-on/hands-on-settings';
import { SHIPPED_MODEL } from './model/shipped';

interface Described {
  /** The URL parameter; null for a setting only elements have. */
  readonly param: string | null;
  /** The element attribute (HTML spells multi-word names with dashes). */
  readonly attribute: string;
  /** How the reader's notices name it: “The number of heads must be …”. */
  readonly label: string;
  /** One line for the README, the docs page, the declarations and the manifest. */
  readonly description: string;
  /** The default in words, where the value alone would not say it. */
  readonly defaultText?: string;
  /** What is accepted, in words, where the range or the choices alone would not say it. */
  readonly accepts?: string;
}

/** A whole number within [min, max]: rounded and clamped, with a notice. */
export interface WholeSpec extends Described {
  readonly kind: 'whole';
  readonly min: number;
  readonly max: number;
  readonly default: number;
}
/** A number within [min, max] (not necessarily whole): clamped, with a notice. */
export interface NumberSpec extends Described {
  readonly kind: 'number';
  readonly min: number;
  readonly max: number;
  readonly default: number;
  /** Added to the out-of-range notice for a value at 0 or below. */
  readonly atOrBelowZero?: string;
}
/** On or off: 1/0, on/off, true/false, yes/no, or present without a value. */
export interface FlagSpec extends Described {
  readonly kind: 'flag';
  readonly default: boolean;
}
/** One word of `choices`. */
export interface ChoiceSpec extends Described {
  readonly kind: 'choice';
  readonly choices: readonly string[];
  /** null: absent means something of its own (`defaultText` says what). */
  readonly default: string | null;
}
/** Free text, checked by its own validator (a sentence, edits, a mask). */
export interface TextSpec extends Described {
  readonly kind: 'text';
  readonly default: string;
}
/** `all`, `none` or a list of words from `choices`. */
export interface ListSpec extends Described {
  readonly kind: 'list';
  readonly choices: readonly string[];
  readonly default: string;
}
/** An attribute whose presence turns something on (elements only). */
export interface PresenceSpec extends Described {
  readonly kind: 'presence';
  readonly default: false;
}
export type SettingSpec = WholeSpec | NumberSpec | FlagSpec | ChoiceSpec | TextSpec | ListSpec | PresenceSpec;

/** The value a setting of this kind holds once validated. */
export type SettingValue<S> = S extends { kind: 'whole' | 'number' }
  ? number
  : S extends { kind: 'flag' | 'presence' }
    ? boolean
    : S extends { kind: 'choice'; choices: readonly (infer C)[] }
      ? C
      : string;

/** A settings object: one validated value per entry of a schema. */
export type SettingsOf<Schema> = { -readonly [K in keyof Schema]: SettingValue<Schema[K]> };

/** The article's sentence: the walkthrough's default. */
export const ARTICLE_SENTENCE = 'The animal crossed the road because it was tired.';

export const LIMITS = Object.freeze({
  maxTokens: 256,
  maxSentenceChars: 2000,
  maxTokenChars: 40,
  minDModel: 1,
  maxDModel: 512,
  /** The engine's own limit (cpp/engine_limits.h). */
  maxHeads: ENGINE_LIMITS.maxHeads,
  /**
   * h × n × n, the size of each of the snapshot's three per-head tables (scores, scaled scores, weights):
   * 64 heads at 128 tokens (12 MiB for the three). Longer sentences get fewer heads (16 at 256 tokens)
   * rather than a snapshot that outgrows a phone's memory.
   */
  maxHeadWeights: 2 ** 20,
  maxSeed: ENGINE_LIMITS.maxSeed,
  /** Above this many tokens, heatmaps drop their per-cell numbers. */
  maxTokensWithNumbers: 64,
  /** Block size (rows per tile) of the FlashAttention step-through. */
  minBlock: 1,
  maxBlock: 16,
});

/**
 * Which numbers the walkthrough computes with: the article's four-token example (inputs chosen so that
 * the article's printed numbers come out, article-example.ts), or the sentence with the shipped trained
 * model, or the sentence with seeded random weights.
 */
export const WEIGHTS_CHOICES = ['example', 'trained', 'random'] as const;

const SUPERSCRIPTS = '⁰¹²³⁴⁵⁶⁷⁸⁹';
/** 2 to a whole power as the docs print it: 2²⁰. */
const powerOfTwo = (value: number) => `2${[...String(Math.log2(value))].map((digit) => SUPERSCRIPTS[Number(digit)]).join('')}`;

/** The walkthrough's settings (settings.ts: `Settings`), in the order links write them and the docs list them. */
export const WALKTHROUGH_SETTINGS = {
  /** The reader's sentence; one token per whitespace-separated word. */
  sentence: {
    kind: 'text',
    param: 'tokens',
    attribute: 'tokens',
    label: 'The sentence',
    description: 'the sentence, one token per word',
    default: ARTICLE_SENTENCE,
    defaultText: 'the article’s sentence',
    accepts:
      `up to ${LIMITS.maxSentenceChars} characters and ${LIMITS.maxTokens} words; h × n² ≤ ${powerOfTwo(LIMITS.maxHeadWeights)} ` +
      `(${LIMITS.maxHeadWeights / LIMITS.maxTokens ** 2} heads at ${LIMITS.maxTokens} words)`,
  },
  dModel: {
    kind: 'whole',
    param: 'd_model',
    attribute: 'd-model',
    label: 'd_model',
    description: 'model dimension',
    min: LIMITS.minDModel,
    max: LIMITS.maxDModel,
    // The article: "4 tokens, model dimension 8, attention dimension 4".
    default: 8,
  },
  heads: {
    kind: 'whole',
    param: 'heads',
    attribute: 'heads',
    label: 'The number of heads',
    description: 'number of heads h; d_k = d_model / h (the settings bar’s control, and step 8’s)',
    min: 1,
    max: LIMITS.maxHeads,
    // One head until the multi-head step explains more: the heads control lives there.
    default: 1,
    accepts: `divisors of d_model, up to ${LIMITS.maxHeads}`,
  },
  causal: {
    kind: 'flag',
    param: 'causal',
    attribute: 'causal',
    label: 'The causal mask',
    description: 'causal mask: each token attends to itself and earlier tokens only',
    default: false,
  },
  /** Divide scores by sqrt(d_k). */
  scale: {
    kind: 'flag',
    param: 'scale',
    attribute: 'scale',
    label: 'Scaling',
    description: 'divide the scores by √d_k',
    default: true,
  },
  /** 0 .. 2^32 - 1: which random weights. */
  seed: {
    kind: 'whole',
    param: 'seed',
    attribute: 'seed',
    label: 'The seed',
    description: 'which random weights',
    min: 0,
    max: LIMITS.maxSeed,
    default: 1,
  },
  /** Which head the single-head figures show: 0-based here, < heads; links and attributes count from 1. */
  head: {
    kind: 'whole',
    param: 'head',
    attribute: 'head',
    label: 'The shown head',
    description: 'the head single-head figures show, from 1',
    min: 0,
    max: Infinity,
    default: 0,
    defaultText: '1',
    accepts: '1–h',
  },
  /** Rows per tile of the tiled (FlashAttention) step-through, for queries and keys alike. */
  block: {
    kind: 'whole',
    param: 'block',
    attribute: 'block',
    label: 'The block size',
    description: 'rows per tile in the FlashAttention step (queries and keys alike)',
    min: LIMITS.minBlock,
    max: LIMITS.maxBlock,
    default: 4,
  },
  /** Width w of the sliding window in the long-context step: each query sees w keys (n·w cells, not n²). */
  lcWindow: {
    kind: 'whole',
    param: 'lc_window',
    attribute: 'window',
    label: 'The window width',
    description: 'keys each query sees in the long-context step’s sliding window (n or more is full attention)',
    min: 1,
    max: LIMITS.maxTokens,
    default: 3,
  },
  /** Tokens every token attends to, and that attend to every token (Longformer/BigBird-style). */
  lcGlobal: {
    kind: 'whole',
    param: 'lc_global',
    attribute: 'global-tokens',
    label: 'The number of global tokens',
    description: 'the first tokens that attend to and are attended by every token, beside the window (long-context step)',
    min: 0,
    max: LIMITS.maxTokens,
    default: 1,
    accepts: `0–${LIMITS.maxTokens}; more than the sentence’s tokens counts as all of them`,
  },
  /** The strided pattern's step (Sparse-Transformer-style): keys j with i − j a multiple of it, beside the window. */
  lcStride: {
    kind: 'whole',
    param: 'lc_stride',
    attribute: 'stride',
    label: 'The stride',
    description: 'the strided pattern also sees every key a multiple of this many tokens away (0: none, 1: all) (long-context step)',
    min: 0,
    max: LIMITS.maxTokens,
    default: 3,
  },
  /** KV heads of the long-context step's cache: the heads (multi-head), fewer (grouped-query) or 1 (multi-query). */
  lcKvHeads: {
    kind: 'whole',
    param: 'lc_kv_heads',
    attribute: 'kv-heads',
    label: 'The number of KV heads',
    description: 'key/value heads of the long-context step’s KV cache: h is multi-head, 1 multi-query, between them grouped-query',
    min: 1,
    max: LIMITS.maxHeads,
    default: LIMITS.maxHeads,
    defaultText: 'h (multi-head)',
    accepts: `1–${LIMITS.maxHeads}; lowered to the nearest divisor of h at or below it`,
  },
  /** The reader's edited numbers, canonical "X.3.2:0.5,Wq.1.4:-0.25" (features/hands-on/hands-on-settings.ts); '' = none. */
  edits: {
    kind: 'text',
    param: 'edits',
    attribute: 'edits',
    label: 'The edited numbers',
    description: 'numbers typed over in step 2: `matrix.row.col:value` counted from 1, e.g. `X.3.2:0.5,Wq.1.4:-0.25`',
    default: '',
    defaultText: 'none',
    accepts:
      `matrices ${EDIT_MATRICES.map((name) => `\`${name}\``).join(' ')}, up to ${EDIT_LIMITS.maxTokens} tokens and ` +
      `d_model ${EDIT_LIMITS.maxDModel}, values within ±${EDIT_LIMITS.maxValue}`,
  },
  /** A custom mask: "none", "pad:k", "window:w", "prefix:p" or "paint:…" (causal is the `causal` flag). */
  mask: {
    kind: 'text',
    param: 'mask',
    attribute: 'mask',
    label: 'The mask',
    description: 'a custom mask (step 7), replacing `causal`',
    default: 'none',
    defaultText: '`none`',
    accepts: '`causal`, `pad:k`, `window:w`, `prefix:p`, `paint:…` (base64url of the n × n bits, row by row)',
  },
  /**
   * 'example': the worked steps show the article's four tokens with their chosen inputs (one head, d_model
   * 8, dₖ 4), while step 1 and the steps from multi-head on read the sentence with the trained model;
   * 'trained': X and W_q, W_k, W_v, W_o are the shipped model's (web/src/model/who-is-it.bin), so d_model
   * and h are the model's and dModel/heads above wait for random mode; 'random': seeded as the article's
   * np.random.randn.
   */
  weights: {
    kind: 'choice',
    param: 'weights',
    attribute: 'weights',
    label: 'The weights',
    description:
      '`example`: the article’s four-token example, with inputs chosen so that every number the article prints comes out ' +
      `(d_model ${EXAMPLE_D_MODEL}, one head of d_k ${EXAMPLE_D_K}; steps 1, 8, 9 and 10 show the sentence with the trained model beside it); ` +
      `\`trained\`: the shipped trained model’s X and W_q, W_k, W_v, W_o (its own d_model ${SHIPPED_MODEL.dModel} and h ${SHIPPED_MODEL.heads}); ` +
      '`random`: seeded like the article’s `np.random.randn`. Without `weights`, a d_model, heads or seed asks for ' +
      '`random` and a new sentence for `trained`; with `example` or `trained` they are not used, and a notice says so',
    choices: WEIGHTS_CHOICES,
    // The worked steps show the article's own numbers; step 1's answer to "what does it refer to?" comes
    // from the trained model, so it is the right one.
    default: 'example',
  },
} as const satisfies Record<string, SettingSpec>;

export const TRAIN_TASKS = ['who-is-it', 'induction'] as const satisfies readonly TrainingTask[];
export const OPTIMIZERS = ['adamw', 'sgd'] as const;
/** The smallest learning rate accepted (the largest is the core's kMaxLearningRate). */
export const MIN_LEARNING_RATE = 1e-5;
/** The most steps one run may ask for: the core's whole-run limit, kept short enough to watch. */
export const MAX_TRAIN_STEPS = Math.min(TRAINING_LIMITS.maxTotalSteps, 5000);

/**
 * Step 11's training run (features/training/train-settings.ts: `TrainSettings`). Its URL parameters carry a train_ prefix:
 * they describe another model than the walkthrough's d_model, heads, scale and seed. The defaults are the
 * shipped model's recipe (web/src/model/who-is-it.args): the reader's first run retrains it.
 */
export const TRAIN_SETTINGS = {
  task: {
    kind: 'choice',
    param: 'train_task',
    attribute: 'task',
    label: 'The task',
    description: 'what the model learns; each task brings its own learning rate and steps unless given',
    choices: TRAIN_TASKS,
    default: 'who-is-it',
  },
  layers: {
    kind: 'whole',
    param: 'train_layers',
    attribute: 'layers',
    label: 'The number of layers',
    description: 'transformer layers',
    min: 1,
    max: TRAINING_LIMITS.maxLayers,
    default: 2,
  },
  dModel: {
    kind: 'whole',
    param: 'train_d_model',
    attribute: 'd-model',
    label: 'd_model',
    description: 'model dimension',
    min: TRAINING_LIMITS.minDModel,
    max: TRAINING_LIMITS.maxDModel,
    default: 32,
  },
  heads: {
    kind: 'whole',
    param: 'train_heads',
    attribute: 'heads',
    label: 'The number of heads',
    description: 'heads per layer',
    min: 1,
    max: TRAINING_LIMITS.maxHeads,
    default: 2,
    accepts: `1–${TRAINING_LIMITS.maxHeads}, dividing d_model`,
  },
  optimizer: {
    kind: 'choice',
    param: 'train_optimizer',
    attribute: 'optimizer',
    label: 'The optimiser',
    description: 'the optimiser (`sgd` with momentum)',
    choices: OPTIMIZERS,
    default: 'adamw',
  },
  learningRate: {
    kind: 'number',
    param: 'train_lr',
    attribute: 'learning-rate',
    label: 'The learning rate',
    description: 'the learning rate',
    min: MIN_LEARNING_RATE,
    max: TRAINING_LIMITS.maxLearningRate,
    default: 0.003,
    atOrBelowZero: 'at 0 or below nothing is learned, or the loss climbs',
  },
  // The same switch as the walkthrough's, under the run's own URL parameter.
  scale: { ...WALKTHROUGH_SETTINGS.scale, param: 'train_scale' },
  seed: {
    kind: 'whole',
    param: 'train_seed',
    attribute: 'seed',
    label: 'The seed',
    description: 'seed of the initial weights and the training data',
    min: 0,
    max: ENGINE_LIMITS.maxSeed,
    default: 1,
  },
  /** How many steps the run trains for. */
  steps: {
    kind: 'whole',
    param: 'train_steps',
    attribute: 'steps',
    label: 'The number of steps',
    description: 'steps to train',
    min: 1,
    max: MAX_TRAIN_STEPS,
    default: 400,
  },
  /** Also train a twin with scaling the other way: same seed, same data ("Why scale"). */
  compare: {
    kind: 'flag',
    param: 'train_compare',
    attribute: 'compare',
    label: 'Training a twin',
    description: 'also train a twin with scaling switched, same seed and data (the “Why scale” experiment)',
    default: false,
  },
} as const satisfies Record<string, SettingSpec>;

/** Control names, as an embed's `controls` attribute lists them. */
export const CONTROL_NAMES = ['tokens', 'preset', 'weights', 'd-model', 'heads', 'head', 'causal', 'scale', 'seed'] as const;
export const THEMES = ['light', 'dark'] as const;

/** Which elements an element-only setting applies to. */
export type ElementScope = 'every' | 'walkthrough';

/** What only elements have: how they look and behave on a host page, not what they compute. */
export const ELEMENT_SETTINGS = {
  controls: {
    kind: 'list',
    param: null,
    attribute: 'controls',
    label: 'The controls',
    description:
      'which controls to show: `all`, `none` or a space-separated list such as `tokens heads causal` ' +
      '(the walkthrough leaves heads and head to its multi-head step, which has its own; `<attention-train>` shows none: its form holds every setting)',
    choices: CONTROL_NAMES,
    default: 'all',
    scope: 'every',
  },
  theme: {
    kind: 'choice',
    param: null,
    attribute: 'theme',
    label: 'theme',
    description: 'force a colour scheme',
    choices: THEMES,
    default: null,
    defaultText: 'the reader’s colour scheme',
    scope: 'every',
  },
  debug: {
    kind: 'presence',
    param: null,
    attribute: 'debug',
    label: 'debug',
    description: 'exposes the engine and the UI path as the `debug` property, for the console and tests',
    default: false,
    scope: 'every',
  },
  syncUrl: {
    kind: 'presence',
    param: null,
    attribute: 'sync-url',
    label: 'sync-url',
    description: 'keep the settings in the page’s URL instead of attributes (the main page does)',
    default: false,
    scope: 'walkthrough',
  },
  embedCode: {
    kind: 'presence',
    param: null,
    attribute: 'embed-code',
    label: 'embed-code',
    description: 'add “Embed this step” (the snippets for the current settings) to the menu under every figure',
    default: false,
    scope: 'walkthrough',
  },
} as const satisfies Record<string, SettingSpec & { scope: ElementScope }>;

/** A schema's defaults, as a frozen settings object. */
export function defaultsOf<Schema extends Record<string, SettingSpec>>(schema: Schema): Readonly<SettingsOf<Schema>> {
  return Object.freeze(Object.fromEntries(Object.entries(schema).map(([key, spec]) => [key, spec.default])) as SettingsOf<Schema>);
}

/** Each setting's URL parameter, by key. */
export function paramsOf<Schema extends Record<string, SettingSpec>>(schema: Schema): { readonly [K in keyof Schema]: string } {
  return Object.freeze(Object.fromEntries(Object.entries(schema).map(([key, spec]) => [key, spec.param ?? spec.attribute]))) as {
    [K in keyof Schema]: string;
  };
}

/** Each setting's attribute, by key. */
export function attributesOf<Schema extends Record<string, SettingSpec>>(schema: Schema): { readonly [K in keyof Schema]: string } {
  return Object.freeze(Object.fromEntries(Object.entries(schema).map(([key, spec]) => [key, spec.attribute]))) as {
    [K in keyof Schema]: string;
  };
}
