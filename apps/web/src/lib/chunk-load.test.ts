import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChunkLoadError, isChunkLoadError, withChunkTimeout } from './chunk-load';

afterEach(() => vi.useRealTimers());

describe('chunk loading (spec §8: ChunkLoadError after a 2-minute wait)', () => {
  it('raises ChunkLoadError when a chunk has not arrived after 120 s', async () => {
    vi.useFakeTimers();
    const p = withChunkTimeout(() => new Promise<never>(() => undefined));
    const a = expect(p).rejects.toBeInstanceOf(ChunkLoadError);
    await vi.advanceTimersByTimeAsync(120_000);
    await a;
  });
  it('wraps a failed import', async () => {
    const e = await withChunkTimeout(() =>
      Promise.reject(new Error('Failed to fetch dynamically imported module: /a.js')),
    ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ChunkLoadError);
    expect(isChunkLoadError(e)).toBe(true);
    expect(isChunkLoadError(new Error('other'))).toBe(false);
  });
  it('passes a module through', async () => {
    await expect(withChunkTimeout(() => Promise.resolve({ default: 1 }))).resolves.toEqual({ default: 1 });
  });
});
