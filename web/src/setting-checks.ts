// How a loosely typed value (a URL parameter, an attribute, a form field) becomes a setting's value:
// one check per kind of setting (settings-schema.ts), each saying in the reader's words what it changed.
// settings.ts and features/training/train-settings.ts call these for every setting, then add the checks that relate
// settings to each other (heads dividing d_model, the shown head, the mask's size).
import type { ChoiceSpec, NumberSpec, SettingSpec, SettingValue, WholeSpec } from './settings-schema';

export type RawValue = string | number | boolean | null | undefined;

/** Bidirectional and invisible control characters are stripped from tokens; tab, newline, form feed and
 * carriage return are ordinary whitespace between words. The zero-width (non-)joiner is kept inside a
 * word, where it shapes emoji sequences and Persian or Indic script, and stripped elsewhere. */
export const INVISIBLE =
  /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]|(?<=^|\s)[\u200c\u200d]+|[\u200c\u200d]+(?=\s|$)/gu;

/** A typed value quoted in a notice: invisible characters dropped, at most 24 characters. */
export function shorten(text: string): string {
  const clean = text.replace(INVISIBLE, '');
  return clean.length > 24 ? `${clean.slice(0, 24)}…` : clean;
}

/** "a", "a or b", "a, b or c": the choices as a notice lists them. */
function orList(words: readonly string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** Plain decimal notation only ("8", "-3", "7.5", "1e6"): hex, binary and "Infinity" are not numbers here. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function parseWhole(raw: RawValue): number | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : NaN;
  if (typeof raw === 'boolean') return NaN;
  const text = String(raw).trim();
  if (text === '') return null;
  const value = DECIMAL.test(text) ? Number(text) : NaN;
  return Number.isFinite(value) ? value : NaN;
}

/** A yes/no value of a link or attribute (also the training form's); anything else keeps `fallback`, with a notice. */
export function parseFlag(raw: RawValue, name: string, fallback: boolean, notices: string[]): boolean {
  if (raw === null || raw === undefined) return fallback;
  if (typeof raw === 'boolean') return raw;
  const text = String(raw).trim().toLowerCase();
  if (['1', 'true', 'on', 'yes', ''].includes(text)) return true;
  if (['0', 'false', 'off', 'no'].includes(text)) return false;
  notices.push(`${name} must be on or off; “${shorten(String(raw))}” was ignored.`);
  return fallback;
}

/** A whole number within [lo, hi] (also the training form's): rounded and clamped, each change named in `notices`. */
export function clampWhole(raw: RawValue, name: string, lo: number, hi: number, fallback: number, notices: string[]): number {
  const value = parseWhole(raw);
  if (value === null) return fallback;
  if (Number.isNaN(value)) {
    notices.push(
      typeof raw === 'number'
        ? `${name} must be a number; ${Number.isNaN(raw) ? 'the field was empty or unreadable' : `“${raw}” is not a finite number`}, so it stays ${fallback}.`
        : `${name} must be a number; “${shorten(String(raw))}” was replaced by ${fallback}.`,
    );
    return fallback;
  }
  let result = value;
  if (!Number.isInteger(result)) {
    result = Math.round(result);
    notices.push(`${name} must be a whole number; ${value} was rounded to ${result}.`);
  }
  if (result < lo || result > hi) {
    const clamped = Math.min(hi, Math.max(lo, result));
    notices.push(`${name} must be ${hi === Infinity ? `at least ${lo}` : `from ${lo} to ${hi}`}; ${result} was changed to ${clamped}.`);
    result = clamped;
  }
  // "-0" parses as -0: the same setting as 0, so it is stored (and compared, and written) as 0.
  return result === 0 ? 0 : result;
}

/**
 * One of `spec.choices` (case and surrounding spaces ignored); anything else keeps `fallback`. `kept` words
 * the end of the notice where "it stays <fallback>" would not read well.
 */
export function checkChoice<S extends ChoiceSpec>(
  spec: S,
  raw: RawValue,
  fallback: SettingValue<S>,
  notices: string[],
  kept = fallback === null ? `${spec.defaultText} is used` : `it stays ${fallback}`,
): SettingValue<S> {
  if (raw === undefined || raw === null) return fallback;
  const value = String(raw).trim().toLowerCase();
  if (spec.choices.includes(value)) return value as SettingValue<S>;
  notices.push(`${spec.label} must be ${orList(spec.choices)}; “${shorten(String(raw))}” was ignored, so ${kept}.`);
  return fallback;
}

/** A number within [spec.min, spec.max], clamped with a notice; an unreadable one keeps `fallback`. */
function checkNumber(spec: NumberSpec, raw: RawValue, fallback: number, notices: string[]): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = typeof raw === 'number' ? raw : Number(String(raw).trim());
  if (!Number.isFinite(value)) {
    notices.push(`${spec.label} must be a number; “${shorten(String(raw))}” was ignored, so it stays ${fallback}.`);
    return fallback;
  }
  if (value < spec.min || value > spec.max) {
    const clamped = Math.min(spec.max, Math.max(spec.min, value));
    const hint = value <= 0 && spec.atOrBelowZero ? ` (${spec.atOrBelowZero})` : '';
    notices.push(`${spec.label} must be from ${spec.min} to ${spec.max}${hint}; ${value} was changed to ${clamped}.`);
    return clamped;
  }
  return value;
}

/** A whole-number setting, checked against its declared range. */
export function checkWhole(spec: WholeSpec, raw: RawValue, fallback: number, notices: string[]): number {
  return clampWhole(raw, spec.label, spec.min, spec.max, fallback, notices);
}

/**
 * Any setting, by its kind alone: what a setting with no rule relating it to others needs, so a setting
 * added to the schema is checked with nothing else written.
 */
export function checkSetting<S extends SettingSpec>(spec: S, raw: RawValue, fallback: SettingValue<S>, notices: string[]): SettingValue<S> {
  const checked = (value: unknown) => value as SettingValue<S>;
  switch (spec.kind) {
    case 'whole':
      return checked(checkWhole(spec, raw, fallback as number, notices));
    case 'number':
      return checked(checkNumber(spec, raw, fallback as number, notices));
    case 'flag':
      return checked(parseFlag(raw, spec.label, fallback as boolean, notices));
    case 'choice':
      return checked(checkChoice(spec, raw, fallback as SettingValue<ChoiceSpec>, notices));
    case 'presence':
      return checked(raw !== null && raw !== undefined && raw !== false);
    case 'text':
    case 'list':
      return checked(raw === null || raw === undefined ? fallback : String(raw));
  }
}
