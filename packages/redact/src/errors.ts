/** Why an input was refused or could not be redacted; stable codes the server maps to translated messages. */
export type RedactErrorCode =
  | 'EMPTY' // 0-byte input
  | 'UNSUPPORTED_TYPE' // the content is not an accepted image format (whatever its name says)
  | 'TRUNCATED' // the pixel data ends early (cut-off upload)
  | 'BAD_IMAGE' // an image that the decoder refuses for another reason
  | 'TOO_MANY_PIXELS' // declared dimensions above the pixel limit (decompression bomb)
  | 'ENCRYPTED' // a PDF with an /Encrypt dictionary (password or owner-only)
  | 'BAD_PDF' // not a PDF, or damaged beyond what pdf.js recovers
  | 'TOO_MANY_PAGES' // more pages than the configured limit
  | 'BAD_BOX'; // a box with a non-finite coordinate or on a page that does not exist

/** A typed refusal: `code` is for programs, `message` for logs (never shown to users as is). */
export class RedactError extends Error {
  override readonly name = 'RedactError';

  constructor(
    readonly code: RedactErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True when `err` is a RedactError, optionally with the given code. */
export function isRedactError(err: unknown, code?: RedactErrorCode): err is RedactError {
  return err instanceof RedactError && (code === undefined || err.code === code);
}
