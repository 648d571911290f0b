/** A LIKE pattern that matches the text anywhere, with %, _ and \ in it taken literally. */
export function likeOf(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
