// The package's declarations (dist/embed/attention-by-hand.d.ts) are generated from this module by
// web/tooling/package-declarations.ts: everything elements/index.ts exports, plus what only types can
// say: attribute types for JSX and templates, and the global tag, event and JSX maps. Nothing imports
// this file at run time (the bundle's entry is elements/index.ts, which defines the same names).
import type { AttentionChangeDetail, AttentionElementTagNameMap } from './index';

export * from './index';

/** `event.detail` of `attention-error`, fired (bubbling, composed) when the engine could not start. */
export interface AttentionErrorDetail {
  message: string;
}

export type AttentionChangeEvent = CustomEvent<AttentionChangeDetail>;
export type AttentionErrorEvent = CustomEvent<AttentionErrorDetail>;

/** The events every element fires. */
export interface AttentionElementEventMap {
  /** After each computation: the settings shown and their numbers. */
  'attention-change': AttentionChangeEvent;
  /** The engine could not start; the element shows the explanation without live numbers. */
  'attention-error': AttentionErrorEvent;
}

// ---------------------------------------------------------------------------------------------------
// Attributes, for JSX and other templates. Values are the URL parameters' (README, "The page's URL").
// custom-elements.json documents the same attributes from these interfaces.

/** An on/off attribute: present (or "", "1", "true", "on", "yes") is on; "0", "false", "off", "no" is off. */
export type AttentionFlag = boolean | '' | '1' | '0' | 'true' | 'false' | 'on' | 'off' | 'yes' | 'no';

/** The attributes of every element. */
export interface AttentionElementAttributes {
  /** The sentence, one token per word: up to 2000 characters, 256 words. */
  tokens?: string;
  /** Model dimension, 1–512. */
  'd-model'?: number | string;
  /** Number of heads: a divisor of d-model, up to 64. */
  heads?: number | string;
  /** Which head single-head figures show, from 1. */
  head?: number | string;
  /** Causal mask: each token attends to itself and earlier tokens only. */
  causal?: AttentionFlag;
  /** Divide by √d_k (default on). */
  scale?: AttentionFlag;
  /** Which random weights, 0–4294967295. */
  seed?: number | string;
  /** Rows per tile in the FlashAttention step, 1–16. */
  block?: number | string;
  /** Edited numbers: "X.3.2:0.5,Wq.1.4:-0.25" (small examples only). */
  edits?: string;
  /** "causal", "pad:k", "window:w", "prefix:p" or "paint:…"; replaces causal. */
  mask?: string;
  /**
   * "example" (default): the article's four tokens with inputs chosen so that its printed numbers come out;
   * "trained": the sentence read by the shipped trained model; "random": the sentence with seeded random weights.
   */
  weights?: 'example' | 'trained' | 'random';
  /**
   * Which controls to show: "all", "none" or a space-separated list such as "tokens heads causal". Default: all
   * (the walkthrough leaves heads and head to its multi-head step, which has its own).
   */
  controls?: string;
  /** Colours; without it the reader's colour scheme is followed. */
  theme?: 'light' | 'dark';
  /** Exposes the engine and the UI path as the `debug` property, for the console and tests. */
  debug?: boolean | '';
}

/** The attributes of <attention-walkthrough>. */
export interface AttentionWalkthroughAttributes extends AttentionElementAttributes {
  /** Keep the settings in the page's URL instead of attributes (the main page does). */
  'sync-url'?: boolean | '';
  /** Add "Embed this step" (the snippets for the current settings) to the menu under every figure. */
  'embed-code'?: boolean | '';
}

/**
 * The attributes of <attention-train>: a training run's settings (the main page's link spells them
 * train_task, train_layers, ...). Values are checked like the form's; a refused one keeps the default
 * and the element says why.
 */
export interface AttentionTrainAttributes {
  /** "who-is-it" (default) or "induction"; each brings its own learning rate and steps unless given. */
  task?: 'who-is-it' | 'induction';
  /** Transformer layers, 1–4 (default 2). */
  layers?: number | string;
  /** Heads per layer, 1–8, a divisor of d-model (default 2). */
  heads?: number | string;
  /** Model dimension, 4–128 (default 32). */
  'd-model'?: number | string;
  /** "adamw" (default) or "sgd" (with momentum). */
  optimizer?: 'adamw' | 'sgd';
  /** Learning rate, 0.00001–1 (default 0.003; induction 0.01). */
  'learning-rate'?: number | string;
  /** Divide the scores by √d_k (default on). */
  scale?: AttentionFlag;
  /** Seed of the initial weights and the training data, 0–4294967295 (default 1). */
  seed?: number | string;
  /** Steps to train, 1–5000 (default 400; induction 800). */
  steps?: number | string;
  /** Also train a twin with scaling switched, same seed and data, side by side (the "Why scale" experiment). */
  compare?: AttentionFlag;
  /** "none" (default): the form above the charts holds every setting. */
  controls?: string;
  /** Colours; without it the reader's colour scheme is followed. */
  theme?: 'light' | 'dark';
  /** Exposes the engine and the UI path as the `debug` property, for the console and tests. */
  debug?: boolean | '';
}

/** JSX props of an element: its attributes plus the common ones. */
export type AttentionJSXProps<E extends HTMLElement, A = AttentionElementAttributes> = A & {
  id?: string;
  class?: string;
  className?: string;
  slot?: string;
  part?: string;
  hidden?: boolean;
  title?: string;
  lang?: string;
  dir?: string;
  style?: unknown;
  key?: string | number | null;
  ref?: ((element: E | null) => unknown) | { current: E | null } | null;
  children?: unknown;
  [data: `data-${string}`]: string | number | boolean | undefined;
  [aria: `aria-${string}`]: string | number | boolean | undefined;
};

/**
 * JSX typings of every element. Merged into the global JSX namespace below (React ≤ 18 types, Preact's
 * and others' global JSX). With React 19's types, add once in a .d.ts of your project:
 *
 *     import type { AttentionIntrinsicElements } from 'attention-by-hand';
 *     declare module 'react' {
 *       namespace JSX { interface IntrinsicElements extends AttentionIntrinsicElements {} }
 *     }
 */
export type AttentionIntrinsicElements = {
  [Tag in keyof AttentionElementTagNameMap]: AttentionJSXProps<
    AttentionElementTagNameMap[Tag],
    Tag extends 'attention-walkthrough'
      ? AttentionWalkthroughAttributes
      : Tag extends 'attention-train'
        ? AttentionTrainAttributes
        : AttentionElementAttributes
  >;
};

declare global {
  interface HTMLElementTagNameMap extends AttentionElementTagNameMap {}
  interface HTMLElementEventMap extends AttentionElementEventMap {}
  interface DocumentEventMap extends AttentionElementEventMap {}
  namespace JSX {
    interface IntrinsicElements extends AttentionIntrinsicElements {}
  }
}
