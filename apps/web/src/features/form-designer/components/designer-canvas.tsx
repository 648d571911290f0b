import type { CSSProperties, ReactNode } from 'react';
import { Button, Empty, Tag, Tooltip, Typography } from 'antd';
import { CopyOutlined, DeleteOutlined, EyeInvisibleOutlined, HolderOutlined, NodeIndexOutlined } from '@ant-design/icons';
import { useDraggable, useDroppable } from '@dnd-kit/core';
import { SortableContext, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { useTranslation } from 'react-i18next';
import { cellText, COMPONENT_TYPES, type FieldComponent, type FormComponent, type TableComponent } from '@esource/shared';
import { FieldControl, labelFor } from '../../crf-renderer';
import type { ComponentType, DesignIssue } from '../designer-state';
import { TYPE_ICONS } from './type-icons';

export const CANVAS_ID = 'canvas';
export const PALETTE_PREFIX = 'palette:';

/** The component list: drag a type onto the canvas, or click it to add it at the end. */
export function Palette({ onAdd, disabled }: { onAdd: (type: ComponentType) => void; disabled: boolean }) {
  const { t } = useTranslation('designer');
  return (
    <div className="fd-palette" data-testid="designer-palette">
      <Typography.Title level={5} className="fd-pane-title">
        {t('palette.title')}
      </Typography.Title>
      <Typography.Paragraph type="secondary" className="fd-hint">
        {t('palette.hint')}
      </Typography.Paragraph>
      {COMPONENT_TYPES.map((type) => (
        <PaletteItem key={type} type={type} onAdd={onAdd} disabled={disabled} />
      ))}
    </div>
  );
}

function PaletteItem({ type, onAdd, disabled }: { type: ComponentType; onAdd: (type: ComponentType) => void; disabled: boolean }) {
  const { t } = useTranslation('designer');
  const { setNodeRef, listeners, attributes, isDragging } = useDraggable({ id: `${PALETTE_PREFIX}${type}`, data: { type }, disabled });
  return (
    <button
      type="button"
      ref={setNodeRef}
      className={`fd-palette-item${isDragging ? ' is-dragging' : ''}`}
      data-testid={`palette-${type}`}
      disabled={disabled}
      onClick={() => onAdd(type)}
      {...attributes}
      {...listeners}
    >
      <span className="fd-palette-icon">{TYPE_ICONS[type]}</span>
      {t(`type.${type}`)}
    </button>
  );
}

export interface CanvasProps {
  components: FormComponent[];
  selectedId: string | null;
  selectedCell: { row: number; col: number } | null;
  issues: DesignIssue[];
  editable: boolean;
  language: string;
  onSelect: (id: string) => void;
  onSelectCell: (id: string, row: number, col: number) => void;
  onDuplicate: (id: string) => void;
  onDelete: (id: string) => void;
}

/** The form being built: a sortable list of components; the selected one is edited in the property panel. */
export function Canvas(props: CanvasProps) {
  const { t } = useTranslation('designer');
  const { setNodeRef, isOver } = useDroppable({ id: CANVAS_ID });
  return (
    <div ref={setNodeRef} className={`fd-canvas${isOver ? ' is-over' : ''}`} data-testid="designer-canvas">
      {props.components.length === 0 ? (
        <Empty className="fd-canvas-empty" image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('canvas.empty')} />
      ) : (
        <SortableContext items={props.components.map((c) => c.id)} strategy={verticalListSortingStrategy}>
          {props.components.map((c, i) => (
            <CanvasItem key={c.id} component={c} index={i} {...props} />
          ))}
        </SortableContext>
      )}
    </div>
  );
}

function CanvasItem({ component: c, index, selectedId, selectedCell, issues, editable, language, onSelect, onSelectCell, onDuplicate, onDelete }: CanvasProps & { component: FormComponent; index: number }) {
  const { t } = useTranslation('designer');
  const { setNodeRef, attributes, listeners, transform, transition, isDragging } = useSortable({ id: c.id, disabled: !editable });
  const style: CSSProperties = { transform: CSS.Transform.toString(transform), transition, opacity: isDragging ? 0.5 : 1 };
  const mine = issues.filter((i) => i.componentId === c.id);
  const selected = selectedId === c.id;
  const field = c.type === 'table' ? null : c;
  return (
    <div
      ref={setNodeRef}
      style={style}
      className={`fd-item${selected ? ' is-selected' : ''}${mine.length ? ' has-issues' : ''}`}
      data-testid="canvas-item"
      data-id={c.id}
      data-type={c.type}
      data-variable={field?.variable}
      onClick={(e) => {
        e.stopPropagation();
        onSelect(c.id);
      }}
    >
      <div className="fd-item-head">
        {editable ? (
          <span className="fd-handle" {...attributes} {...listeners} data-testid={`canvas-handle-${index}`} aria-label={t('canvas.drag')}>
            <HolderOutlined />
          </span>
        ) : null}
        <Tag className="fd-type-tag" icon={TYPE_ICONS[c.type]}>
          {t(`type.${c.type}`)}
        </Tag>
        <span className="fd-item-label">
          {field?.required ? <span className="crf-required">*</span> : null}
          {labelFor(c, language) || <Typography.Text type="secondary">{t('table.untitled')}</Typography.Text>}
        </span>
        {field ? <code className="fd-var">{field.variable}</code> : null}
        {field?.hidden ? (
          <Tooltip title={t('field.hidden')}>
            <EyeInvisibleOutlined className="fd-flag" />
          </Tooltip>
        ) : null}
        {c.displayCondition ? (
          <Tooltip title={`${t('field.displayCondition')}: ${c.displayCondition}`}>
            <Tag color="purple" icon={<NodeIndexOutlined />} className="fd-cond-tag">
              {c.displayCondition}
            </Tag>
          </Tooltip>
        ) : null}
        <span className="fd-item-actions">
          {editable ? (
            <>
              <Tooltip title={t('canvas.duplicate')}>
                <Button
                  size="small"
                  type="text"
                  icon={<CopyOutlined />}
                  aria-label={t('canvas.duplicate')}
                  data-testid={`canvas-duplicate-${index}`}
                  onClick={(e) => {
                    e.stopPropagation();
                    onDuplicate(c.id);
                  }}
                />
              </Tooltip>
              <Tooltip title={t('canvas.delete')}>
                <Button
                  size="small"
                  type="text"
                  danger
                  icon={<DeleteOutlined />}
                  aria-label={t('canvas.delete')}
                  data-testid={`canvas-delete-${index}`}
                  onClick={(e) => {
                    e.stopPropagation();
                    onDelete(c.id);
                  }}
                />
              </Tooltip>
            </>
          ) : null}
        </span>
      </div>
      <div className="fd-item-body">
        {c.type === 'table' ? (
          <TableGrid table={c} language={language} selectedCell={selected ? selectedCell : null} onSelectCell={(r, k) => onSelectCell(c.id, r, k)} issues={mine} />
        ) : (
          <FieldPreview field={c} language={language} />
        )}
      </div>
      {mine.length > 0 ? (
        <ul className="fd-issues" data-testid="canvas-item-issues">
          {mine.map((i, k) => (
            <li key={k}>{issueText(t, i)}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function issueText(t: (k: string, o?: Record<string, unknown>) => string, i: DesignIssue): string {
  const msg = i.params?.raw ? i.message : t(i.message, i.params);
  return i.field && i.componentId ? `${fieldName(t, i.field)}: ${msg}` : msg;
}

function fieldName(t: (k: string) => string, field: string): string {
  const parts = field.split('.');
  const last = parts.filter((p) => !/^\d+$/.test(p)).pop() ?? field;
  const known: Record<string, string> = {
    label: 'field.label',
    labelEn: 'field.labelEn',
    variable: 'field.variable',
    displayCondition: 'field.displayCondition',
    options: 'field.options',
    value: 'option.value',
    mapping: 'option.mapping',
    precision: 'field.precision',
    unit: 'field.unit',
    cells: 'table.cells',
    text: 'cell.text',
    textEn: 'cell.textEn',
  };
  const name = known[last] ? t(known[last]) : last;
  const optionIndex = parts.indexOf('options');
  return optionIndex >= 0 && parts[optionIndex + 1] ? `${t('field.options')} ${Number(parts[optionIndex + 1]) + 1} · ${name}` : name;
}

/** A disabled look at the item, the way it will render. */
function FieldPreview({ field, language }: { field: FieldComponent; language: string }) {
  return (
    <div className="fd-field-preview" aria-hidden>
      <FieldControl field={{ ...field, disabled: true, variable: `preview_${field.variable}` }} value={undefined} onChange={noop} language={language} readOnly />
      {field.unit && field.type !== 'number' && field.type !== 'text' ? <span className="crf-unit fd-unit">{field.unit}</span> : null}
    </div>
  );
}
const noop = () => undefined;

function TableGrid({
  table,
  language,
  selectedCell,
  onSelectCell,
  issues,
}: {
  table: TableComponent;
  language: string;
  selectedCell: { row: number; col: number } | null;
  onSelectCell: (row: number, col: number) => void;
  issues: DesignIssue[];
}) {
  const { t } = useTranslation('designer');
  const badCells = new Set(issues.map((i) => /^cells\.(\d+)/.exec(i.field)?.[1]).filter(Boolean).map(Number));
  const rows: ReactNode[] = [];
  for (let r = 0; r < table.rows; r++) {
    rows.push(
      <tr key={r}>
        {table.cells
          .map((cell, idx) => ({ cell, idx }))
          .filter(({ cell }) => cell.row === r)
          .sort((a, b) => a.cell.col - b.cell.col)
          .map(({ cell, idx }) => {
            const sel = selectedCell?.row === cell.row && selectedCell.col === cell.col;
            const text = cellText(cell, language);
            return (
              <td
                key={`${cell.row}-${cell.col}`}
                rowSpan={cell.rowSpan > 1 ? cell.rowSpan : undefined}
                colSpan={cell.colSpan > 1 ? cell.colSpan : undefined}
                className={`fd-cell${sel ? ' is-selected' : ''}${badCells.has(idx) ? ' has-issues' : ''}${cell.component ? ' is-field' : text ? ' is-text' : ''}`}
                data-testid={`table-cell-${cell.row}-${cell.col}`}
                onClick={(e) => {
                  e.stopPropagation();
                  onSelectCell(cell.row, cell.col);
                }}
              >
                {text ? <div className="fd-cell-text">{text}</div> : null}
                {cell.component ? (
                  <div className="fd-cell-field">
                    <span className="fd-cell-type">{TYPE_ICONS[cell.component.type]}</span>
                    {labelFor(cell.component, language)} <code className="fd-var">{cell.component.variable}</code>
                  </div>
                ) : null}
                {!text && !cell.component ? <span className="fd-cell-empty">{t('cell.emptyShort')}</span> : null}
              </td>
            );
          })}
      </tr>,
    );
  }
  return (
    <table className="fd-table">
      <tbody>{rows}</tbody>
    </table>
  );
}
