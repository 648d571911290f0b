import { useEffect, type RefObject } from 'react';
import { LIMITS } from '@esource/shared';
import { watermarkTile } from './watermark-text';

const ATTR = 'data-esource-watermark';

export function watermarkStyle(tile: string): string {
  const { width, height } = LIMITS.watermarkTile;
  return [
    'position:absolute',
    'inset:0',
    'pointer-events:none',
    'z-index:999',
    `background-image:${tile}`,
    `background-size:${width}px ${height}px`,
    'background-repeat:repeat',
    'display:block',
    'visibility:visible',
    'opacity:1',
  ].join(';');
}

/**
 * Keeps a watermark layer in `target` (spec §2, §9): tiles of 300×200 with the user's name, masked phone,
 * organisation, system time and hospital. Every 500 ms, and at once when the layer is removed or its
 * attributes are altered, it checks the layer and puts it back. Returns a stop function.
 */
export function keepWatermark(target: HTMLElement, lines: string[]): () => void {
  const style = watermarkStyle(watermarkTile(lines));
  let layer: HTMLDivElement | null = null;
  let layerObserver: MutationObserver | null = null;

  const intact = () =>
    layer !== null &&
    layer.parentElement === target &&
    layer.getAttribute('style') === style &&
    layer.getAttribute(ATTR) === 'true' &&
    !layer.hasAttribute('hidden') &&
    !layer.hasAttribute('class') &&
    layer.childNodes.length === 0;

  const ensure = () => {
    if (intact()) return;
    layerObserver?.disconnect();
    layer?.remove();
    layer = document.createElement('div');
    layer.setAttribute(ATTR, 'true');
    layer.setAttribute('aria-hidden', 'true');
    layer.setAttribute('data-testid', 'watermark');
    layer.setAttribute('style', style);
    target.appendChild(layer);
    layerObserver = new MutationObserver(ensure);
    layerObserver.observe(layer, { attributes: true, childList: true });
  };

  ensure();
  const timer = setInterval(ensure, LIMITS.watermarkCheckMs);
  const targetObserver = new MutationObserver((records) => {
    if (records.some((r) => [...r.removedNodes].includes(layer as Node))) ensure();
  });
  targetObserver.observe(target, { childList: true });
  return () => {
    clearInterval(timer);
    targetObserver.disconnect();
    layerObserver?.disconnect();
    layer?.remove();
    layer = null;
  };
}

/** React binding: the watermark lives in the element `targetRef` points at (position: relative). */
export function Watermark({
  targetRef,
  lines,
}: {
  targetRef: RefObject<HTMLElement | null>;
  lines: string[];
}) {
  const key = lines.join('\n');
  useEffect(() => {
    const el = targetRef.current;
    if (!el || key === '') return;
    return keepWatermark(el, key.split('\n'));
  }, [targetRef, key]);
  return null;
}
