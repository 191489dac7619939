// Token labels for table headers: the word itself, with its position added when a word repeats
// ("the" appears twice in the article's sentence), so every row is unambiguous when read aloud.
export function tokenLabels(tokens: string[]): string[] {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token.toLowerCase(), (counts.get(token.toLowerCase()) ?? 0) + 1);
  return tokens.map((token, i) => ((counts.get(token.toLowerCase()) ?? 0) > 1 ? `${token} (${i + 1})` : token));
}

/** Column labels for dimensions: "1", "2", ... */
export function dimensionLabels(count: number, prefix = ''): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);
}

/**
 * The token the page's examples follow: the article's pronoun “it” (ignoring case and punctuation)
 * when the sentence has one, otherwise the last token.
 */
export function focusTokenIndex(tokens: readonly string[]): number {
  const index = tokens.findIndex((token) => token.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '') === 'it');
  return index >= 0 ? index : Math.max(0, tokens.length - 1);
}
