/** Why an OCR request was refused or failed; stable codes the server maps to translated messages. */
export type OcrErrorCode =
  | 'OCR_BUSY' // the bounded queue is full: try again later
  | 'OCR_BAD_IMAGE' // the bytes are not an image sharp can decode (corrupt, truncated, not an image)
  | 'OCR_TOO_MANY_PIXELS' // declared dimensions above the pixel limit (decompression bomb)
  | 'OCR_CLOSED' // the service was closed before the request ran
  | 'OCR_ENGINE'; // the engine failed (model missing, worker died)

/** A typed OCR failure: `code` is for programs, `message` for logs. */
export class OcrError extends Error {
  override readonly name = 'OcrError';

  constructor(
    readonly code: OcrErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True when `err` is an OcrError, optionally with the given code. */
export function isOcrError(err: unknown, code?: OcrErrorCode): err is OcrError {
  return err instanceof OcrError && (code === undefined || err.code === code);
}
