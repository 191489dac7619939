// Element attributes are the embed API. They go through the same validation boundary as URL
// parameters (settings.ts): an element attribute and a URL parameter with the same value mean
// the same thing.
import { settingsFromParams, settingsToParams, type Settings, type ValidatedSettings } from '../settings';
import { shorten } from '../setting-checks';
import { CONTROL_NAMES, ELEMENT_SETTINGS, THEMES, WALKTHROUGH_SETTINGS } from '../settings-schema';
import { TRAIN_ATTRIBUTES, trainSettingsFrom, type ValidatedTrainSettings } from '../features/training/train-settings';

type WalkthroughSchema = typeof WALKTHROUGH_SETTINGS;
/** attribute name -> URL parameter name (identical except d-model, which HTML spells with a dash). */
export const SETTING_ATTRIBUTES = Object.freeze(
  Object.fromEntries(Object.values(WALKTHROUGH_SETTINGS).map((spec) => [spec.attribute, spec.param])),
) as { readonly [K in keyof WalkthroughSchema as WalkthroughSchema[K]['attribute']]: WalkthroughSchema[K]['param'] };

/** The element-only attributes every element watches (an on/off one such as `debug` is read when needed). */
export const OTHER_ATTRIBUTES = Object.values(ELEMENT_SETTINGS)
  .filter((spec) => spec.scope === 'every' && spec.kind !== 'presence')
  .map((spec) => spec.attribute);
export const OBSERVED_ATTRIBUTES = [...Object.keys(SETTING_ATTRIBUTES), ...OTHER_ATTRIBUTES];

/** <attention-train>'s attributes: a training run's settings (features/training/train-settings.ts) instead of the walkthrough's. */
export const TRAINING_ATTRIBUTE_NAMES = Object.values(TRAIN_ATTRIBUTES);
export const TRAINING_OBSERVED_ATTRIBUTES = [...TRAINING_ATTRIBUTE_NAMES, ...OTHER_ATTRIBUTES];

export function trainingFromAttributes(element: Element): ValidatedTrainSettings {
  return trainSettingsFrom((name) => element.getAttribute(name), TRAIN_ATTRIBUTES);
}

export function settingsFromAttributes(element: Element): ValidatedSettings {
  const params = new URLSearchParams();
  for (const [attribute, param] of Object.entries(SETTING_ATTRIBUTES)) {
    const value = element.getAttribute(attribute);
    if (value !== null) params.set(param, value);
  }
  const validated = settingsFromParams(params);
  // Say "attribute d-model" rather than "d_model" where the reader typed an attribute.
  return validated;
}

/** The attributes that reproduce these settings (defaults left out), for embed snippets. */
export function settingsToAttributes(settings: Settings): [string, string][] {
  const params = settingsToParams(settings);
  const byParam = Object.fromEntries(Object.entries(SETTING_ATTRIBUTES).map(([attribute, param]) => [param, attribute]));
  return [...params.entries()].map(([param, value]) => [byParam[param], value]);
}

type ControlName = (typeof CONTROL_NAMES)[number];

export interface ControlsAttribute {
  visible: Set<ControlName>;
  notices: string[];
}

/** controls="all" (default), "none", or a space-separated list such as "tokens heads causal". */
export function parseControls(value: string | null): ControlsAttribute {
  if (value === null || value.trim() === '' || value.trim() === 'all') return { visible: new Set(CONTROL_NAMES), notices: [] };
  if (value.trim() === 'none') return { visible: new Set(), notices: [] };
  const visible = new Set<ControlName>();
  const unknown: string[] = [];
  for (const word of value.trim().split(/[\s,]+/)) {
    if ((CONTROL_NAMES as readonly string[]).includes(word)) visible.add(word as ControlName);
    else unknown.push(word.slice(0, 24));
  }
  const listed = unknown.slice(0, 5).join('”, “') + (unknown.length > 5 ? `” and ${unknown.length - 5} more` : '”');
  // Nothing recognised is a typo, not "none": show every control rather than silently none.
  const fallback = visible.size === 0;
  const notices = unknown.length
    ? [
        `Unknown control${unknown.length > 1 ? 's' : ''} “${listed} ignored${fallback ? ', so every control is shown' : ''}; known controls: ${CONTROL_NAMES.join(', ')}.`,
      ]
    : [];
  return { visible: fallback ? new Set(CONTROL_NAMES) : visible, notices };
}

/** theme="light" | "dark"; anything else follows the reader's colour scheme, and the element says so. */
export function themeNotices(value: string | null): string[] {
  if (value === null || (THEMES as readonly string[]).includes(value)) return [];
  const { label, defaultText } = ELEMENT_SETTINGS.theme;
  return [`${label} must be ${THEMES.join(' or ')}; “${shorten(value)}” was ignored, so ${defaultText} is used.`];
}
