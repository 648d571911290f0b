import { useRef, useState, type PointerEvent as ReactPointerEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { MIN_BOX, moveRect, rectBetween, resizeRect, type Rect } from '../document-logic';

export interface EditorBox extends Rect {
  key: string;
  page: number;
  kind: string;
  reason: string;
}

type Drag =
  | { mode: 'draw'; start: { x: number; y: number }; now: { x: number; y: number } }
  | { mode: 'move' | 'resize'; key: string; start: { x: number; y: number }; orig: Rect; now: { x: number; y: number } };

interface Props {
  /** the page image, drawn to fill the canvas */
  image: ReactNode;
  /** the page's size in its own pixels (the boxes' coordinates) */
  size: { width: number; height: number };
  zoom: number;
  boxes: EditorBox[];
  editable: boolean;
  selected: string | null;
  onSelect: (key: string | null) => void;
  onAdd: (r: Rect) => void;
  onUpdate: (key: string, r: Rect) => void;
  onRemove: (key: string) => void;
  /** a text line to outline (hovered in the text panel) */
  highlight?: Rect | null;
}

/**
 * A page with its redaction boxes. Editable: drag on the page to draw a box, drag a box to move it, drag its corner
 * to resize it, Delete removes the selected one. Coordinates are the page's own pixels; the canvas scales by `zoom`.
 */
export function BoxCanvas({ image, size, zoom, boxes, editable, selected, onSelect, onAdd, onUpdate, onRemove, highlight }: Props) {
  const { t } = useTranslation('documents');
  const ref = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<Drag | null>(null);

  const point = (e: ReactPointerEvent) => {
    const r = ref.current!.getBoundingClientRect();
    return { x: (e.clientX - r.left) / zoom, y: (e.clientY - r.top) / zoom };
  };

  const down = (e: ReactPointerEvent<HTMLDivElement>, box?: EditorBox, mode: 'move' | 'resize' = 'move') => {
    if (e.button !== 0) return;
    e.stopPropagation();
    ref.current?.focus();
    if (box) onSelect(box.key);
    else onSelect(null);
    if (!editable) return;
    e.preventDefault();
    ref.current?.setPointerCapture(e.pointerId);
    const p = point(e);
    setDrag(box ? { mode, key: box.key, start: p, orig: box, now: p } : { mode: 'draw', start: p, now: p });
  };

  const draft = (d: Drag): Rect | null => {
    if (d.mode === 'draw') return rectBetween(d.start, d.now, size);
    const dx = d.now.x - d.start.x;
    const dy = d.now.y - d.start.y;
    return d.mode === 'move' ? moveRect(d.orig, dx, dy, size) : resizeRect(d.orig, dx, dy, size);
  };

  const up = () => {
    if (!drag) return;
    const r = draft(drag);
    setDrag(null);
    if (!r) return;
    if (drag.mode === 'draw') {
      if (r.width >= MIN_BOX && r.height >= MIN_BOX) onAdd(r);
      return;
    }
    if (r.x !== drag.orig.x || r.y !== drag.orig.y || r.width !== drag.orig.width || r.height !== drag.orig.height) onUpdate(drag.key, r);
  };

  const shown = (b: EditorBox): Rect => (drag && drag.mode !== 'draw' && drag.key === b.key ? (draft(drag) ?? b) : b);
  const px = (r: Rect) => ({ left: r.x * zoom, top: r.y * zoom, width: r.width * zoom, height: r.height * zoom });
  const drawing = drag?.mode === 'draw' ? draft(drag) : null;

  return (
    <div
      ref={ref}
      className={`doc-canvas${editable ? ' doc-canvas-editable' : ''}`}
      style={{ width: size.width * zoom, height: size.height * zoom }}
      tabIndex={0}
      role="application"
      aria-label={t('viewer.canvas')}
      data-testid="box-canvas"
      onPointerDown={(e) => down(e)}
      onPointerMove={(e) => drag && setDrag({ ...drag, now: point(e) })}
      onPointerUp={up}
      onPointerCancel={() => setDrag(null)}
      onKeyDown={(e) => {
        if (editable && selected && (e.key === 'Delete' || e.key === 'Backspace')) {
          e.preventDefault();
          onRemove(selected);
        }
      }}
    >
      <div className="doc-canvas-image">{image}</div>
      {boxes.map((b, i) => (
        <div
          key={b.key}
          className={`doc-box doc-box-${b.kind === 'manual' ? 'manual' : b.kind === 'mask' ? 'mask' : 'auto'}${selected === b.key ? ' doc-box-selected' : ''}`}
          style={px(shown(b))}
          title={`${i + 1}. ${t(`kind.${b.kind}`, { defaultValue: b.kind })}`}
          data-testid={`box-${i}`}
          onPointerDown={(e) => down(e, b)}
        >
          {editable && selected === b.key ? (
            <div className="doc-box-handle" data-testid="box-handle" onPointerDown={(e) => down(e, b, 'resize')} />
          ) : null}
        </div>
      ))}
      {drawing ? <div className="doc-box doc-box-draft" style={px(drawing)} /> : null}
      {highlight ? <div className="doc-line-outline" style={px(highlight)} /> : null}
    </div>
  );
}
