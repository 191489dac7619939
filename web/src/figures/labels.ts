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
