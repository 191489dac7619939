// The attributes' types, for JSX and other templates, computed from the settings schema
// (settings-schema.ts): a setting added there is an attribute here with nothing written. The package's
// declarations spell these out as interfaces with each attribute's description (generated from the same
// schema by web/tooling/settings-docs.ts); tests/unit/package-declarations.check.ts proves both identical.
import type { ELEMENT_SETTINGS, ElementScope, TRAIN_SETTINGS, WALKTHROUGH_SETTINGS } from '../settings-schema';

/** An on/off attribute: present (or "", "1", "true", "on", "yes") is on; "0", "false", "off", "no" is off. */
export type AttentionFlag = boolean | '' | '1' | '0' | 'true' | 'false' | 'on' | 'off' | 'yes' | 'no';

/** What a template may write for a setting of this kind. */
type AttributeValue<S> = S extends { kind: 'whole' | 'number' }
  ? number | string
  : S extends { kind: 'flag' }
    ? AttentionFlag
    : S extends { kind: 'presence' }
      ? boolean | ''
      : S extends { kind: 'choice'; choices: readonly (infer C)[] }
        ? C
        : string;

/** One optional attribute per setting of `Schema`, under the setting's attribute name. */
type AttributesOf<Schema> = {
  [K in keyof Schema as Schema[K] extends { attribute: infer A extends string } ? A : never]?: AttributeValue<Schema[K]>;
};

type Elements = typeof ELEMENT_SETTINGS;
/** The element-only settings of `Scope`'s elements. */
type ElementOnly<Scope extends ElementScope> = { [K in keyof Elements as Elements[K]['scope'] extends Scope ? K : never]: Elements[K] };

/** The attributes of every element: the walkthrough's settings and the element-only ones. */
export type AttentionElementAttributes = AttributesOf<typeof WALKTHROUGH_SETTINGS & ElementOnly<'every'>>;
/** The attributes of <attention-walkthrough>: every element's, and its own. */
export type AttentionWalkthroughAttributes = AttributesOf<typeof WALKTHROUGH_SETTINGS & ElementOnly<'every' | 'walkthrough'>>;
/** The attributes of <attention-train>: a training run's settings (the main page's link spells them train_task, …). */
export type AttentionTrainAttributes = AttributesOf<typeof TRAIN_SETTINGS & ElementOnly<'every'>>;
