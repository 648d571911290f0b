import { afterEach, describe, expect, it } from 'vitest';
import { keepWatermark } from './watermark';
import { maskPhone, watermarkLines, watermarkTile } from './watermark-text';

let stop: (() => void) | null = null;
afterEach(() => {
  stop?.();
  stop = null;
  document.body.innerHTML = '';
});

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('watermark (spec §2, §9)', () => {
  it('masks the phone and builds the lines', () => {
    expect(maskPhone('13812345678')).toBe('138****5678');
    expect(maskPhone(null)).toBe('');
    expect(
      watermarkLines({
        name: 'Ann',
        phone: '13812345678',
        org: 'Org',
        time: '2026-01-01 10:00',
        hospital: 'Hosp',
      }),
    ).toEqual(['Ann 138****5678', 'Org', '2026-01-01 10:00', 'Hosp']);
  });

  it('tiles 300×200', () => {
    const tile = decodeURIComponent(watermarkTile(['a']));
    expect(tile).toContain('width="300"');
    expect(tile).toContain('height="200"');
  });

  it('puts the layer back when it is removed or altered', async () => {
    const target = document.createElement('div');
    document.body.appendChild(target);
    stop = keepWatermark(target, ['Ann']);
    const first = target.querySelector('[data-testid=watermark]')!;
    expect(first).not.toBeNull();
    first.remove();
    await flush();
    expect(target.querySelector('[data-testid=watermark]')).not.toBeNull();
    const second = target.querySelector<HTMLElement>('[data-testid=watermark]')!;
    second.style.display = 'none';
    await flush();
    const third = target.querySelector<HTMLElement>('[data-testid=watermark]')!;
    expect(third.style.display).toBe('block');
  });
});
