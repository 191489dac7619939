// Which element embed.html?step=… shows. Authors reach for whichever name they saw last: the section's
// id (step=causal), the element's tag (step=attention-mask) or the tag without its prefix (step=mask).
// All three name the same step; the table is built from the registry, so a new step needs no entry here.
import { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from './elements/registry';

/** The prefix every element's tag starts with (step=mask names <attention-mask>). */
export const PREFIX = 'attention-';
const DEFAULT_STEP = 'scores';

/** Every accepted name (lowercase) -> the element's tag. A Map, so "constructor" or "__proto__" name nothing. */
const TAGS_BY_NAME: ReadonlyMap<string, string> = new Map(
  [...Object.entries(STEP_ELEMENTS), ['all', WALKTHROUGH_ELEMENT] as const].flatMap(([step, tag]) => [
    [step, tag],
    [tag, tag],
    [tag.slice(PREFIX.length), tag],
  ]),
);

export interface EmbedStep {
  /** The element to create. */
  tag: string;
  /** False when the name matched nothing and the default step is shown instead. */
  known: boolean;
}

/** The step a `step=` value names (case and surrounding spaces ignored); the scores step when absent or unknown. */
export function embedStep(requested: string | null): EmbedStep {
  if (requested === null) return { tag: STEP_ELEMENTS[DEFAULT_STEP], known: true };
  const tag = TAGS_BY_NAME.get(requested.trim().toLowerCase());
  return tag ? { tag, known: true } : { tag: STEP_ELEMENTS[DEFAULT_STEP], known: false };
}

/** The names the notice for an unknown step lists: each step's id, then the element names, then "all". */
export function embedStepNames(): string {
  return `${Object.keys(STEP_ELEMENTS).join(', ')} (or the element’s name, such as mask or attention-mask), or all`;
}
