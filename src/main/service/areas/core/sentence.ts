/** Ruby's Array#to_sentence in the English locale: `a`, `a and b`, `a, b, and c`. */
export function toSentence(parts: string[]): string {
  if (parts.length <= 2) return parts.join(' and ');
  return `${parts.slice(0, -1).join(', ')}, and ${parts[parts.length - 1]}`;
}
