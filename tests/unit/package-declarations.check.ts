// Compile-time checks of the package's generated declarations (dist/embed/attention-by-hand.d.ts, made
// by the embed build) against the code they were generated from: every public type is identical to the
// code's. Not part of `tsc -p .` (the file exists only after a build): tests/unit/package.test.ts checks
// that dist/embed is what a fresh build of this tree makes, then compiles this file with
// tests/unit/tsconfig.package.json, where a mismatch is a compile error.
import type * as Pkg from '../../dist/embed/attention-by-hand';
import type * as Attributes from '../../web/src/elements/attribute-types';
import type {
  AttentionElement as SourceElement,
  AttentionChangeDetail as SourceChangeDetail,
} from '../../web/src/elements/attention-element';
import type { AttentionDebug } from '../../web/src/elements/debug';
import type * as Entry from '../../web/src/elements/index';
import type { StepElementTag, WALKTHROUGH_ELEMENT } from '../../web/src/elements/registry';
import type * as Engine from '../../web/src/engine/types';
import type { Settings } from '../../web/src/settings';
import type { FlashSnapshot, Snapshot } from '../../web/src/snapshot';
import type { TrainedSnapshot } from '../../web/src/features/trained-model/trained';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
/**
 * The same members, each optional in both or in neither and of an identical type: how an interface is
 * compared with the mapped type it spells out (the two are never identical as wholes).
 */
type IsOptional<T, K extends keyof T> = Pick<T, K> extends Required<Pick<T, K>> ? false : true;
type SameMember<A, B, K extends keyof A & keyof B> = Equal<A[K], B[K]> extends true ? Equal<IsOptional<A, K>, IsOptional<B, K>> : false;
type SameMembers<A, B> =
  Equal<keyof A, keyof B> extends true
    ? false extends { [K in keyof A & keyof B]-?: SameMember<A, B, K> }[keyof A & keyof B]
      ? false
      : true
    : false;

/** A class's public surface: classes with private members compare by declaration, not by shape. */
type Public<T> = { [K in keyof T]: T[K] };
type PublicDebug<D extends { engine: unknown }> = Omit<D, 'engine'> & { engine: Public<D['engine']> };

export type DeclarationsMatchTheCode = [
  Assert<Equal<Pkg.AttentionConfig, Settings>>,
  Assert<Equal<Pkg.AttentionSnapshot, Snapshot>>,
  Assert<Equal<Pkg.FlashSnapshot, FlashSnapshot>>,
  Assert<Equal<Pkg.TrainedSnapshot, TrainedSnapshot>>,
  Assert<Equal<Pkg.AttentionChangeDetail, SourceChangeDetail>>,
  Assert<Equal<Pkg.Matrix, Engine.Matrix>>,
  Assert<Equal<Pkg.Tensor3, Engine.Tensor3>>,
  Assert<Equal<Pkg.MaskMatrix, Engine.MaskMatrix>>,
  Assert<Equal<Pkg.PipelineSnapshot, Engine.PipelineSnapshot>>,
  Assert<Equal<Pkg.DotProductSamples, Engine.DotProductSamples>>,
  Assert<Equal<Pkg.SoftmaxSaturation, Engine.SoftmaxSaturation>>,
  Assert<Equal<Pkg.FlashTrace, Engine.FlashTrace>>,
  Assert<Equal<Pkg.FlashTraceStep, Engine.FlashTraceStep>>,
  Assert<Equal<PublicDebug<Pkg.AttentionDebug>, PublicDebug<AttentionDebug>>>,
  // The elements' read-only properties and methods.
  Assert<Equal<Pkg.AttentionElement['config'], SourceElement['config']>>,
  Assert<Equal<Pkg.AttentionElement['result'], SourceElement['result']>>,
  Assert<Equal<PublicDebug<NonNullable<Pkg.AttentionElement['debug']>>, PublicDebug<NonNullable<SourceElement['debug']>>>>,
  Assert<Equal<null extends Pkg.AttentionElement['debug'] ? true : false, true>>,
  Assert<Equal<Pkg.AttentionElement['scrollToStep'], SourceElement['scrollToStep']>>,
  // Every public member of the code's element is declared, and nothing more (no test-only members).
  Assert<Equal<Exclude<keyof SourceElement, keyof Pkg.AttentionElement>, never>>,
  Assert<Equal<Exclude<keyof Pkg.AttentionElement, keyof SourceElement>, never>>,
  // The bundle's exports (web/src/elements/index.ts) are exactly the declared values.
  Assert<Equal<keyof typeof Entry, keyof typeof Pkg>>,
  Assert<Equal<typeof Pkg.defineElements, typeof Entry.defineElements>>,
  // One element type per registry tag, and no other; one attribute type per attribute the elements read.
  Assert<Equal<keyof Pkg.AttentionElementTagNameMap, StepElementTag | typeof WALKTHROUGH_ELEMENT>>,
  // The attribute interfaces, spelled out from the schema with their descriptions, are exactly the types
  // attribute-types.ts computes from it: the same attributes, the same value types.
  Assert<SameMembers<Pkg.AttentionElementAttributes, Attributes.AttentionElementAttributes>>,
  Assert<SameMembers<Pkg.AttentionWalkthroughAttributes, Attributes.AttentionWalkthroughAttributes>>,
  Assert<SameMembers<Pkg.AttentionTrainAttributes, Attributes.AttentionTrainAttributes>>,
  Assert<Equal<Pkg.AttentionFlag, Attributes.AttentionFlag>>,
  Assert<Equal<Exclude<keyof Pkg.AttentionWalkthroughAttributes, keyof Pkg.AttentionElementAttributes>, 'sync-url' | 'embed-code'>>,
  // SameMembers itself tells a different type and a different optionality apart.
  Assert<Equal<SameMembers<{ a?: string }, { a?: number }>, false>>,
  Assert<Equal<SameMembers<{ a?: string }, { a: string }>, false>>,
  Assert<Equal<SameMembers<{ a?: string }, { a?: string; b?: string }>, false>>,
  Assert<Equal<SameMembers<{ a?: string }, { [K in 'a']?: string }>, true>>,
];
