import { createRequire } from 'node:module';
import type { Token } from './types.js';

interface JiebaLike {
  tag(sentence: string, hmm?: boolean): { word: string; tag: string }[];
}

let jieba: JiebaLike | undefined;

// The dictionary (≈ 5 MB) is read and parsed on first use only, once per process.
function instance(): JiebaLike {
  if (!jieba) {
    const require = createRequire(import.meta.url);
    const { Jieba } = require('@node-rs/jieba') as { Jieba: { withDict(dict: Uint8Array): JiebaLike } };
    const { dict } = require('@node-rs/jieba/dict') as { dict: Uint8Array };
    jieba = Jieba.withDict(dict);
  }
  return jieba;
}

/** Segments text into words with part-of-speech tags (jieba, HMM on) and their offsets in the text. */
export function segment(text: string): Token[] {
  const tokens: Token[] = [];
  let cursor = 0;
  for (const { word, tag } of instance().tag(text, true)) {
    // jieba keeps every character, but never trust that blindly: find the word from the cursor
    const start = text.startsWith(word, cursor) ? cursor : text.indexOf(word, cursor);
    if (start < 0) continue;
    tokens.push({ word, tag, start, end: start + word.length });
    cursor = start + word.length;
  }
  return tokens;
}
