import { useMemo, type ReactNode } from 'react';
import { Col, Form, Row, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { cellText, isShown, type FieldComponent, type ItemValues, type TableComponent } from '@esource/shared';
import { FieldControl } from './field-control';
import { applyConditions, labelFor, shownVariables, type FieldError, type FieldErrors, type RenderableForm } from './renderer-logic';
import './crf-renderer.css';

export interface FormRendererProps {
  definition: RenderableForm;
  values: ItemValues;
  /** the new values, with the items a display condition now hides already cleared */
  onChange?: (values: ItemValues) => void;
  /** errors to show, by variable (see validateForm / useCrfForm) */
  errors?: FieldErrors;
  /** data-quality warnings to show where there is no error (see formWarnings: outside a soft range) */
  warnings?: FieldErrors;
  /** the whole form is read-only */
  readOnly?: boolean;
  /** the reader's language; labels fall back to the primary label */
  language?: string;
  /** messages to show on items as they are (e.g. a server's answer), by variable; they win over `errors` */
  errorTexts?: Record<string, string>;
  /** something to draw next to an item's label (e.g. eCRF entry's history button) */
  itemExtra?: (field: FieldComponent) => ReactNode;
}

/**
 * Renders an eCRF form definition (the designer's JSON) with antd inputs: the designer's preview and eCRF data
 * entry use this very component. Controlled: `values` in, `onChange` out. Items whose display condition does
 * not hold are not drawn, not validated, and their values are cleared on the next change.
 */
export function FormRenderer({
  definition,
  values,
  onChange,
  errors = {},
  warnings = {},
  readOnly,
  language,
  errorTexts,
  itemExtra,
}: FormRendererProps) {
  const { t, i18n } = useTranslation('crf');
  const lang = language ?? i18n.language;
  const layout = definition.layout ?? 'vertical';
  const labelWidth = definition.labelWidth ?? 120;
  const shown = useMemo(() => shownVariables(definition.components, values), [definition.components, values]);

  const setValue = (variable: string, value: unknown) => {
    if (!onChange || readOnly) return;
    const rest = Object.fromEntries(Object.entries(values).filter(([k]) => k !== variable));
    onChange(applyConditions(definition.components, value === undefined ? rest : { ...rest, [variable]: value }));
  };

  const errorText = (e: FieldError | undefined, variable?: string): string | undefined =>
    (variable ? errorTexts?.[variable] : undefined) ?? (e ? t(`error.${e.key}`, e.params) : undefined);
  const warningText = (variable: string): string | undefined => {
    const w = warnings[variable];
    return w ? t(`warning.${w.key}`, w.params) : undefined;
  };

  const fieldItem = (f: FieldComponent): ReactNode => {
    if (!shown.has(f.variable) || f.hidden) return null;
    const e = errors[f.variable];
    const msg = errorText(e, f.variable);
    const warn = msg ? undefined : warningText(f.variable);
    const extra = itemExtra?.(f);
    return (
      <Form.Item
        key={f.variable}
        data-testid={`crf-item-${f.variable}`}
        label={
          extra ? (
            <span className="crf-item-label">
              {labelFor(f, lang)}
              {extra}
            </span>
          ) : (
            labelFor(f, lang)
          )
        }
        required={Boolean(f.required)}
        validateStatus={msg ? 'error' : warn ? 'warning' : undefined}
        help={msg ?? (warn ? <span data-testid={`crf-warning-${f.variable}`}>{warn}</span> : undefined)}
        className="crf-item"
      >
        <FieldControl
          field={f}
          value={values[f.variable]}
          onChange={(v) => setValue(f.variable, v)}
          language={lang}
          readOnly={readOnly}
          invalid={Boolean(msg)}
          ariaLabel={labelFor(f, lang)}
        />
      </Form.Item>
    );
  };

  const tableItem = (tb: TableComponent): ReactNode => {
    // a table whose condition does not hold hides with all its fields
    if (!isShown(tb.displayCondition, values)) return null;
    return (
      <div key={tb.id} className="crf-table-wrap" data-testid={`crf-table-${tb.id}`}>
        {tb.label ? <Typography.Text strong className="crf-table-title">{labelFor(tb, lang)}</Typography.Text> : null}
        <table className="crf-table">
          <tbody>
            {Array.from({ length: tb.rows }, (_, r) => (
              <tr key={r}>
                {tb.cells
                  .filter((c) => c.row === r)
                  .sort((a, b) => a.col - b.col)
                  .map((c) => {
                    const f = c.component;
                    const visible = f && shown.has(f.variable) && !f.hidden;
                    const e = f ? errors[f.variable] : undefined;
                    const msg = f ? errorText(e, f.variable) : undefined;
                    const warn = f && !msg ? warningText(f.variable) : undefined;
                    const text = cellText(c, lang);
                    return (
                      <td
                        key={`${c.row}-${c.col}`}
                        rowSpan={c.rowSpan > 1 ? c.rowSpan : undefined}
                        colSpan={c.colSpan > 1 ? c.colSpan : undefined}
                        data-testid={`crf-cell-${tb.id}-${c.row}-${c.col}`}
                        className={f ? 'crf-cell-field' : 'crf-cell-text'}
                      >
                        {text ? <div className="crf-cell-label">{text}</div> : null}
                        {f && visible ? (
                          <div data-testid={`crf-item-${f.variable}`}>
                            {text ? (
                              f.required ? <span className="crf-required" aria-hidden>*</span> : null
                            ) : (
                              <div className="crf-cell-field-label">
                                {f.required ? <span className="crf-required" aria-hidden>*</span> : null}
                                {labelFor(f, lang)}
                                {itemExtra?.(f)}
                              </div>
                            )}
                            {text ? itemExtra?.(f) : null}
                            <FieldControl
                              field={f}
                              value={values[f.variable]}
                              onChange={(v) => setValue(f.variable, v)}
                              language={lang}
                              readOnly={readOnly}
                              invalid={Boolean(msg)}
                              ariaLabel={labelFor(f, lang)}
                            />
                            {msg ? <div className="crf-cell-error">{msg}</div> : null}
                            {warn ? (
                              <div className="crf-cell-warning" data-testid={`crf-warning-${f.variable}`}>
                                {warn}
                              </div>
                            ) : null}
                          </div>
                        ) : null}
                      </td>
                    );
                  })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  };

  const items = definition.components.map((c) =>
    c.type === 'table' ? { key: c.id, wide: true, node: tableItem(c) } : { key: c.id, wide: c.type === 'textarea', node: fieldItem(c) },
  );
  const horizontal = layout !== 'vertical';

  return (
    <Form
      className={`crf-form crf-layout-${layout}`}
      data-testid="crf-form"
      layout={horizontal ? 'horizontal' : 'vertical'}
      labelCol={horizontal ? { flex: `0 0 ${labelWidth}px` } : undefined}
      wrapperCol={horizontal ? { flex: '1 1 0' } : undefined}
      labelWrap
      colon={false}
      component="div"
    >
      {layout === 'grid' ? (
        <Row gutter={24}>
          {items
            .filter((i) => i.node !== null)
            .map((i) => (
              <Col key={i.key} xs={24} md={i.wide ? 24 : 12}>
                {i.node}
              </Col>
            ))}
        </Row>
      ) : (
        items.map((i) => (i.node ? <div key={i.key}>{i.node}</div> : null))
      )}
    </Form>
  );
}
