// The package's declarations (dist/embed/attention-by-hand.d.ts) are generated from this module by
// web/tooling/package-declarations.ts: everything elements/index.ts exports, plus what only types can
// say: attribute types for JSX and templates, and the global tag, event and JSX maps. Nothing imports
// this file at run time (the bundle's entry is elements/index.ts, which defines the same names).
import type { AttentionElementAttributes, AttentionTrainAttributes, AttentionWalkthroughAttributes } from './attribute-types';
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

// Attributes, for JSX and other templates: computed from the settings schema (attribute-types.ts).
export type {
  AttentionElementAttributes,
  AttentionFlag,
  AttentionTrainAttributes,
  AttentionWalkthroughAttributes,
} from './attribute-types';

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
