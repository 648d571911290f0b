import { LIMITS } from '@esource/shared';

/** A lazy chunk or stylesheet did not arrive in time (spec §8, §9: 120 s). */
export class ChunkLoadError extends Error {
  override name = 'ChunkLoadError';
}

/**
 * Wraps a dynamic import: rejects with ChunkLoadError when it fails or has not resolved after the chunk
 * load timeout. The error boundary offers a reload, which fetches the new build's chunks after a deploy.
 */
export function withChunkTimeout<T>(
  load: () => Promise<T>,
  timeoutMs: number = LIMITS.chunkLoadTimeoutMs,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new ChunkLoadError(`chunk load timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    load().then(
      (m) => {
        clearTimeout(timer);
        resolve(m);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(new ChunkLoadError(e instanceof Error ? e.message : String(e)));
      },
    );
  });
}

export function isChunkLoadError(e: unknown): boolean {
  return (
    e instanceof ChunkLoadError ||
    (e instanceof Error &&
      /Failed to fetch dynamically imported module|Importing a module script failed|ChunkLoadError/.test(
        e.message,
      ))
  );
}
