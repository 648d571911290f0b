import { App, Button, Empty, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { overlappingMasks, type SourceFileTextLine, type SourceFileTextMask } from '@esource/shared';

interface Props {
  /** every line of the file (a mask names its index here) */
  lines: SourceFileTextLine[];
  page: number;
  masks: SourceFileTextMask[];
  editable: boolean;
  onMasks: (m: SourceFileTextMask[]) => void;
  onHover: (line: number | null) => void;
}

/** The characters of a line split into kept and masked stretches. */
function segments(text: string, masks: SourceFileTextMask[], line: number): { text: string; masked: number | null; start: number }[] {
  const mine = masks.map((m, i) => ({ ...m, i })).filter((m) => m.line === line).sort((a, b) => a.start - b.start);
  const out: { text: string; masked: number | null; start: number }[] = [];
  let at = 0;
  for (const m of mine) {
    if (m.start > at) out.push({ text: text.slice(at, m.start), masked: null, start: at });
    out.push({ text: text.slice(m.start, m.end), masked: m.i, start: m.start });
    at = Math.max(at, m.end);
  }
  if (at < text.length) out.push({ text: text.slice(at), masked: null, start: at });
  return out;
}

/** The offset of a DOM point inside a line element (its text is split into segment spans carrying their start). */
function offsetIn(lineEl: Element, node: Node, offset: number): number | null {
  const seg = (node.nodeType === Node.TEXT_NODE ? node.parentElement : (node as Element))?.closest('[data-seg-start]');
  if (!seg || !lineEl.contains(seg)) return null;
  return Number(seg.getAttribute('data-seg-start')) + (node.nodeType === Node.TEXT_NODE ? offset : 0);
}

/**
 * Text masking (spec §2, §5): the text read on the page, line by line; the user selects characters in one line and
 * masks them (a box is placed over them when saved). A selection overlapping one already made is refused.
 */
export function TextMaskPanel({ lines, page, masks, editable, onMasks, onHover }: Props) {
  const { t } = useTranslation('documents');
  const { message } = App.useApp();
  const onPage = lines.map((l, i) => ({ ...l, i })).filter((l) => l.page === page);

  const maskSelection = () => {
    const sel = window.getSelection();
    if (!sel || sel.isCollapsed || !sel.anchorNode || !sel.focusNode) {
      void message.warning(t('mask.selectFirst'));
      return;
    }
    const a = (sel.anchorNode.nodeType === Node.TEXT_NODE ? sel.anchorNode.parentElement : (sel.anchorNode as Element))?.closest('[data-line]');
    const b = (sel.focusNode.nodeType === Node.TEXT_NODE ? sel.focusNode.parentElement : (sel.focusNode as Element))?.closest('[data-line]');
    if (!a || a !== b) {
      void message.warning(t('mask.oneLine'));
      return;
    }
    const line = Number(a.getAttribute('data-line'));
    const s = offsetIn(a, sel.anchorNode, sel.anchorOffset);
    const e = offsetIn(a, sel.focusNode, sel.focusOffset);
    if (s === null || e === null || s === e) {
      void message.warning(t('mask.selectFirst'));
      return;
    }
    const next = { line, start: Math.min(s, e), end: Math.max(s, e) };
    if (overlappingMasks([...masks, next]).length > 0) {
      void message.error(t('mask.overlap'));
      return;
    }
    sel.removeAllRanges();
    onMasks([...masks, next]);
  };

  if (onPage.length === 0) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('mask.noText')} />;
  return (
    <div data-testid="mask-panel">
      <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>
        {editable ? t('mask.intro') : t('mask.readOnly')}
      </Typography.Paragraph>
      {editable ? (
        <Button size="small" type="primary" ghost onClick={maskSelection} onMouseDown={(e) => e.preventDefault()} data-testid="mask-selection" style={{ marginBottom: 8 }}>
          {t('mask.apply')}
        </Button>
      ) : null}
      <div className="doc-lines">
        {onPage.map((l) => (
          <div key={l.i} className="doc-line" data-line={l.i} onMouseEnter={() => onHover(l.i)} onMouseLeave={() => onHover(null)} data-testid={`line-${l.i}`}>
            {segments(l.text, masks, l.i).map((s) =>
              s.masked !== null ? (
                <Tag
                  key={s.start}
                  data-seg-start={s.start}
                  color="purple"
                  className="doc-masked"
                  closable={editable}
                  onClose={(e) => {
                    e.preventDefault();
                    onMasks(masks.filter((_, i) => i !== s.masked));
                  }}
                >
                  {s.text}
                </Tag>
              ) : (
                <span key={s.start} data-seg-start={s.start}>
                  {s.text}
                </span>
              ),
            )}
          </div>
        ))}
      </div>
    </div>
  );
}
