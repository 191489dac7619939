// Number formatting for everything shown on the page. Never prints NaN: a non-finite value is a
// bug upstream, shown as a visible marker rather than as "NaN".

const MINUS = '\u2212';

export function fmt(value: number, digits = 2): string {
  if (Number.isNaN(value)) return '?';
  if (value === Infinity) return '∞';
  if (value === -Infinity) return `${MINUS}∞`;
  const text = value.toFixed(digits);
  // -0.00 reads as a sign error in hand arithmetic
  if (/^-0\.?0*$/.test(text)) return text.slice(1);
  return text.startsWith('-') ? MINUS + text.slice(1) : text;
}

export function percent(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return '?';
  return `${(value * 100).toFixed(digits)}%`;
}

/**
 * An integer with thousands commas, 1234567 -> "1,234,567": what toLocaleString('en-US') prints,
 * without its first call's locale set-up (about 250 ms of the first load on a slow machine).
 */
export function groupDigits(integer: number): string {
  const digits = String(Math.abs(Math.trunc(integer)));
  return (integer <= -1 ? '-' : '') + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** 1234567 -> "1,234,567"; 1.2e9 -> "1.2 billion" */
export function count(value: number): string {
  if (!Number.isFinite(value)) return '?';
  if (value >= 1e12) return `${(value / 1e12).toPrecision(3)} trillion`;
  if (value >= 1e9) return `${(value / 1e9).toPrecision(3)} billion`;
  return groupDigits(Math.round(value));
}

export function bytes(value: number): string {
  if (!Number.isFinite(value)) return '?';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = value;
  let unit = 0;
  while (v >= 1024 && unit < units.length - 1) {
    v /= 1024;
    unit++;
  }
  return `${unit === 0 ? v : v.toPrecision(3)} ${units[unit]}`;
}

/** Subscript digits for labels like q₁. */
export function sub(index: number): string {
  return String(index).replace(/\d/g, (d) => '₀₁₂₃₄₅₆₇₈₉'[Number(d)]);
}

/** A token as a quoted label: “animal”. */
export function quoted(token: string): string {
  return `“${token}”`;
}

/** Signed change since the reader's edits: "+0.12", "−0.004" (three decimals below 0.01). */
export function formatDelta(delta: number): string {
  const size = Math.abs(delta);
  return `${delta < 0 ? MINUS : '+'}${size >= 0.01 ? size.toFixed(2) : size.toFixed(3)}`;
}

/** Signed change of a probability, in percentage points: "+3%" ("+0.4%" below one point). */
export function formatPercentDelta(delta: number): string {
  const points = Math.abs(delta) * 100;
  return `${delta < 0 ? MINUS : '+'}${points >= 1 ? points.toFixed(0) : points.toFixed(1)}%`;
}
