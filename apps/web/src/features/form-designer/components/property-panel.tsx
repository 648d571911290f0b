import { Alert, Button, Checkbox, Divider, Empty, Form, Input, InputNumber, Radio, Segmented, Select, Space, Switch, Typography } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import {
  CHOICE_TYPES,
  DATE_MEANINGS,
  FIELD_TYPES,
  dateMeaning,
  FORM_LAYOUTS,
  conditionError,
  formFields,
  referencedVariables,
  type FieldComponent,
  type FieldType,
  type FormComponent,
  type FormOption,
  type TableComponent,
} from '@esource/shared';
import { LimitedInput, LimitedTextArea } from '../../../components/limited-input';
import { cellAt, newField, optionProblems, type DesignIssue, type Draft, type NewLabels } from '../designer-state';

type T = (k: string, o?: Record<string, unknown>) => string;

function issuesFor(t: T, issues: DesignIssue[], componentId: string | null, field: string): string | undefined {
  const hit = issues.filter((i) => i.componentId === componentId && (i.field === field || (field !== '' && i.field.startsWith(`${field}.`))));
  if (hit.length === 0) return undefined;
  return hit.map((i) => (i.params?.raw ? i.message : t(i.message, i.params))).join('; ');
}

/** The form's own properties (spec §2: name, code, English name, cycle, layout, label width, record type). */
export function FormProps({ draft, onChange, issues }: { draft: Draft; onChange: (patch: Partial<Draft>) => void; issues: DesignIssue[] }) {
  const { t } = useTranslation('designer');
  const err = (f: string) => issuesFor(t, issues, null, f);
  const status = (f: string) => (err(f) ? ('error' as const) : undefined);
  return (
    <>
      <Form.Item label={t('form.name')} required validateStatus={status('name')} help={err('name')}>
        <LimitedInput data-testid="form-name" value={draft.name} max={100} onChange={(e) => onChange({ name: e.target.value })} />
      </Form.Item>
      <Form.Item label={t('form.code')} required validateStatus={status('code')} help={err('code')}>
        <LimitedInput data-testid="form-code" value={draft.code} max={50} onChange={(e) => onChange({ code: e.target.value })} />
      </Form.Item>
      <Form.Item label={t('form.nameEn')} validateStatus={status('nameEn')} help={err('nameEn')}>
        <LimitedInput data-testid="form-nameEn" value={draft.nameEn ?? ''} max={100} onChange={(e) => onChange({ nameEn: e.target.value })} />
      </Form.Item>
      <Form.Item label={t('form.cycle')} tooltip={t('form.cycleHelp')}>
        <Switch data-testid="form-cycle" checked={draft.cycle} onChange={(v) => onChange({ cycle: v })} />
      </Form.Item>
      <Form.Item label={t('form.layout')}>
        <Radio.Group
          data-testid="form-layout"
          optionType="button"
          value={draft.layout}
          options={FORM_LAYOUTS.map((l) => ({ value: l, label: t(`layout.${l}`) }))}
          onChange={(e) => onChange({ layout: e.target.value as Draft['layout'] })}
        />
      </Form.Item>
      <Form.Item label={t('form.labelWidth')} validateStatus={status('labelWidth')} help={err('labelWidth')}>
        <InputNumber data-testid="form-labelWidth" min={60} max={400} step={10} value={draft.labelWidth} suffix="px" onChange={(v) => onChange({ labelWidth: v ?? 120 })} />
      </Form.Item>
      <Form.Item label={t('form.recordType')}>
        <Radio.Group
          data-testid="form-recordType"
          value={draft.recordType}
          options={(['medical', 'scoring'] as const).map((r) => ({ value: r, label: t(`recordType.${r}`) }))}
          onChange={(e) => onChange({ recordType: e.target.value as Draft['recordType'] })}
        />
      </Form.Item>
      {err('components') ? <Alert type="error" showIcon title={err('components')} data-testid="form-components-issue" /> : null}
    </>
  );
}

/** Live check of a display condition: compiles, and reads only other variables of this form. */
export function ConditionCheck({ expression, variables, self }: { expression: string; variables: Set<string>; self: string | null }) {
  const { t } = useTranslation('designer');
  if (!expression.trim()) return <Typography.Text type="secondary">{t('field.conditionHelp')}</Typography.Text>;
  const e = conditionError(expression);
  if (e)
    return (
      <Typography.Text type="danger" data-testid="condition-status" data-valid="false">
        {t('validation.condition')} ({e})
      </Typography.Text>
    );
  const vars = referencedVariables(expression);
  const bad = vars.filter((v) => !variables.has(v) || v === self);
  if (bad.length > 0)
    return (
      <Typography.Text type="danger" data-testid="condition-status" data-valid="false">
        {t('validation.conditionVariable')}: {bad.join(', ')}
      </Typography.Text>
    );
  return (
    <Typography.Text type="success" data-testid="condition-status" data-valid="true">
      {t('field.conditionOk', { vars: vars.join(', ') || '—' })}
    </Typography.Text>
  );
}

export interface FieldPropsProps {
  field: FieldComponent;
  /** the id issues are filed under (the component, or the table holding this cell) */
  issueId: string;
  /** the issue path prefix ('' for a component, 'cells.3.component.' for a cell) */
  prefix: string;
  issues: DesignIssue[];
  variables: Set<string>;
  onChange: (patch: Partial<FieldComponent>) => void;
  /** a table cell's field has no own display condition line in the canvas, but has one here */
  allowTypeChange?: boolean;
}

/** Properties of one item: labels, variable, flags, display condition, unit, precision, options. */
export function FieldProps({ field, issueId, prefix, issues, variables, onChange, allowTypeChange }: FieldPropsProps) {
  const { t } = useTranslation('designer');
  const err = (f: string) => issuesFor(t, issues, issueId, `${prefix}${f}`);
  const status = (f: string) => (err(f) ? ('error' as const) : undefined);
  const isChoice = CHOICE_TYPES.includes(field.type);
  return (
    <>
      {allowTypeChange ? (
        <Form.Item label={t('cell.fieldType')}>
          <Select
            data-testid="cell-field-type"
            value={field.type}
            options={FIELD_TYPES.map((ft) => ({ value: ft, label: t(`type.${ft}`) }))}
            onChange={(v: FieldType) => {
              const patch: Partial<FieldComponent> = { type: v };
              if (CHOICE_TYPES.includes(v) && !field.options?.length) patch.options = [{ value: '1', label: t('option.default', { n: 1 }) }];
              if (v !== 'number') patch.precision = undefined;
              onChange(patch);
            }}
          />
        </Form.Item>
      ) : null}
      <Form.Item label={t('field.label')} required validateStatus={status('label')} help={err('label')}>
        <LimitedInput data-testid="prop-label" value={field.label} max={100} onChange={(e) => onChange({ label: e.target.value })} />
      </Form.Item>
      <Form.Item label={t('field.labelEn')} validateStatus={status('labelEn')} help={err('labelEn')}>
        <LimitedInput data-testid="prop-labelEn" value={field.labelEn ?? ''} max={100} onChange={(e) => onChange({ labelEn: e.target.value })} />
      </Form.Item>
      <Form.Item label={t('field.variable')} required validateStatus={status('variable')} help={err('variable')} tooltip={t('field.variableHelp')}>
        <LimitedInput data-testid="prop-variable" value={field.variable} max={40} onChange={(e) => onChange({ variable: e.target.value.trim() })} />
      </Form.Item>
      <Form.Item label={t('field.flags')}>
        <Space wrap size={[12, 4]}>
          {(['required', 'hidden', 'disabled', 'readOnly'] as const).map((k) => (
            <Checkbox key={k} data-testid={`prop-${k}`} checked={Boolean(field[k])} onChange={(e) => onChange({ [k]: e.target.checked || undefined })}>
              {t(`field.${k}`)}
            </Checkbox>
          ))}
        </Space>
      </Form.Item>
      <Form.Item label={t('field.displayCondition')} validateStatus={status('displayCondition')}>
        <Input.TextArea
          data-testid="prop-condition"
          autoSize={{ minRows: 1, maxRows: 4 }}
          value={field.displayCondition ?? ''}
          placeholder={'SEX == "2"'}
          maxLength={500}
          onChange={(e) => onChange({ displayCondition: e.target.value })}
        />
        <div className="fd-condition-check">
          <ConditionCheck expression={field.displayCondition ?? ''} variables={variables} self={field.variable} />
        </div>
      </Form.Item>
      {field.type !== 'file' && field.type !== 'radio' && field.type !== 'checkbox' ? (
        <Form.Item label={t('field.placeholder')}>
          <LimitedInput data-testid="prop-placeholder" value={field.placeholder ?? ''} max={100} onChange={(e) => onChange({ placeholder: e.target.value })} />
        </Form.Item>
      ) : null}
      <Form.Item label={t('field.unit')} validateStatus={status('unit')} help={err('unit')}>
        <LimitedInput data-testid="prop-unit" value={field.unit ?? ''} max={20} onChange={(e) => onChange({ unit: e.target.value })} />
      </Form.Item>
      {field.type === 'number' ? (
        <Space size={8} wrap>
          <Form.Item label={t('field.precision')} validateStatus={status('precision')} help={err('precision')}>
            <InputNumber
              data-testid="prop-precision"
              min={0}
              max={6}
              precision={0}
              value={field.precision ?? null}
              onChange={(v) => onChange({ precision: v ?? undefined })}
            />
          </Form.Item>
          <Form.Item label={t('field.min')}>
            <InputNumber data-testid="prop-min" value={field.min ?? null} onChange={(v) => onChange({ min: v ?? undefined })} />
          </Form.Item>
          <Form.Item label={t('field.max')} validateStatus={status('min')} help={err('min')}>
            <InputNumber data-testid="prop-max" value={field.max ?? null} onChange={(v) => onChange({ max: v ?? undefined })} />
          </Form.Item>
          <Form.Item label={t('field.rangeKind')} tooltip={t('field.softRangeHelp')}>
            <Checkbox
              data-testid="prop-softRange"
              checked={Boolean(field.softRange)}
              disabled={field.min === undefined && field.max === undefined}
              onChange={(e) => onChange({ softRange: e.target.checked || undefined })}
            >
              {t('field.softRange')}
            </Checkbox>
          </Form.Item>
        </Space>
      ) : null}
      {field.type === 'date' || field.type === 'datetime' ? (
        <Form.Item label={t('field.dateRules')}>
          <Space orientation="vertical" size={4} style={{ width: '100%' }}>
            <Space orientation="vertical" size={2} style={{ width: '100%' }}>
              <span>{t('field.dateMeaning')}</span>
              <Select
                data-testid="prop-dateMeaning"
                size="small"
                style={{ width: '100%' }}
                value={field.dateMeaning ?? 'auto'}
                options={[
                  { value: 'auto', label: t('dateMeaning.auto', { meaning: t(`dateMeaning.${dateMeaning({ variable: field.variable })}`) }) },
                  ...DATE_MEANINGS.map((m) => ({ value: m, label: t(`dateMeaning.${m}`) })),
                ]}
                onChange={(v: string) => onChange({ dateMeaning: v === 'auto' ? undefined : (v as FieldComponent['dateMeaning']) })}
              />
            </Space>
            <Checkbox data-testid="prop-allowFuture" checked={Boolean(field.allowFuture)} onChange={(e) => onChange({ allowFuture: e.target.checked || undefined })}>
              {t('field.allowFuture')}
            </Checkbox>
            {field.type === 'date' ? (
              <Checkbox data-testid="prop-partialDate" checked={Boolean(field.partialDate)} onChange={(e) => onChange({ partialDate: e.target.checked || undefined })}>
                {t('field.partialDate')}
              </Checkbox>
            ) : null}
          </Space>
        </Form.Item>
      ) : null}
      {isChoice ? (
        <OptionsEditor options={field.options ?? []} onChange={(options) => onChange({ options })} error={err('options')} />
      ) : null}
    </>
  );
}

/** value / label / English label / mapping; a duplicate value or mapping is marked at once and blocks saving. */
export function OptionsEditor({ options, onChange, error }: { options: FormOption[]; onChange: (o: FormOption[]) => void; error?: string }) {
  const { t } = useTranslation('designer');
  const problems = optionProblems(options);
  const set = (i: number, patch: Partial<FormOption>) => onChange(options.map((o, k) => (k === i ? { ...o, ...patch } : o)));
  const nextValue = () => {
    const used = new Set(options.map((o) => o.value));
    for (let n = options.length + 1; ; n++) if (!used.has(String(n))) return String(n);
  };
  return (
    <div className="fd-options" data-testid="options-editor">
      <Divider titlePlacement="start" plain className="fd-divider">
        {t('field.options')}
      </Divider>
      <div className="fd-option-row fd-option-head">
        <span>{t('option.value')}</span>
        <span>{t('option.label')}</span>
        <span>{t('option.labelEn')}</span>
        <span>{t('option.mapping')}</span>
        <span />
      </div>
      {options.map((o, i) => (
        <div key={i} className="fd-option-row">
          <Input
            size="small"
            data-testid={`opt-value-${i}`}
            status={problems[i]?.value || !o.value ? 'error' : undefined}
            value={o.value}
            maxLength={50}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <Input size="small" data-testid={`opt-label-${i}`} status={!o.label ? 'error' : undefined} value={o.label} maxLength={100} onChange={(e) => set(i, { label: e.target.value })} />
          <Input size="small" data-testid={`opt-labelEn-${i}`} value={o.labelEn ?? ''} maxLength={100} onChange={(e) => set(i, { labelEn: e.target.value })} />
          <Input
            size="small"
            data-testid={`opt-mapping-${i}`}
            status={problems[i]?.mapping ? 'error' : undefined}
            value={o.mapping ?? ''}
            maxLength={50}
            onChange={(e) => set(i, { mapping: e.target.value })}
          />
          <Button
            size="small"
            type="text"
            danger
            icon={<DeleteOutlined />}
            aria-label={t('option.remove')}
            data-testid={`opt-remove-${i}`}
            onClick={() => onChange(options.filter((_, k) => k !== i))}
          />
          {problems[i] ? (
            <div className="fd-option-error" data-testid={`opt-error-${i}`}>
              {[problems[i].value ? t('validation.duplicateOptionValue') : null, problems[i].mapping ? t('validation.duplicateOptionMapping') : null]
                .filter(Boolean)
                .join('; ')}
            </div>
          ) : null}
        </div>
      ))}
      {error ? <div className="fd-option-error">{error}</div> : null}
      <Button
        size="small"
        type="dashed"
        block
        icon={<PlusOutlined />}
        data-testid="opt-add"
        onClick={() => onChange([...options, { value: nextValue(), label: t('option.default', { n: options.length + 1 }) }])}
      >
        {t('option.add')}
      </Button>
    </div>
  );
}

export interface TablePropsProps {
  table: TableComponent;
  draft: Draft;
  cell: { row: number; col: number } | null;
  /** the last merge refused (translated) */
  mergeError: string | null;
  issues: DesignIssue[];
  labels: NewLabels;
  onChange: (t: TableComponent) => void;
  onResize: (rows: number, cols: number) => void;
  onMerge: (dir: 'down' | 'right') => void;
  onSplit: () => void;
  onCellChange: (patch: { text?: string; textEn?: string; component?: FieldComponent }) => void;
}

/** A table layout: title, size, display condition; the selected cell: merge, split, and its text or field. */
export function TableProps({ table, draft, cell, mergeError, issues, labels, onChange, onResize, onMerge, onSplit, onCellChange }: TablePropsProps) {
  const { t } = useTranslation('designer');
  const variables = new Set(formFields(draft.components).map((f) => f.variable));
  const err = (f: string) => issuesFor(t, issues, table.id, f);
  const c = cell ? cellAt(table, cell.row, cell.col) : undefined;
  const cellIndex = c ? table.cells.indexOf(c) : -1;
  const kind = c?.component ? 'field' : c?.text !== undefined ? 'text' : 'empty';
  return (
    <>
      <Form.Item label={t('table.title')} validateStatus={err('label') ? 'error' : undefined} help={err('label')}>
        <LimitedInput data-testid="table-title" value={table.label} max={100} onChange={(e) => onChange({ ...table, label: e.target.value })} />
      </Form.Item>
      <Form.Item label={t('field.labelEn')}>
        <LimitedInput data-testid="table-labelEn" value={table.labelEn ?? ''} max={100} onChange={(e) => onChange({ ...table, labelEn: e.target.value })} />
      </Form.Item>
      <Space size={12}>
        <Form.Item label={t('table.rows')}>
          <InputNumber data-testid="table-rows" min={1} max={50} precision={0} value={table.rows} onChange={(v) => v && onResize(v, table.cols)} />
        </Form.Item>
        <Form.Item label={t('table.cols')}>
          <InputNumber data-testid="table-cols" min={1} max={20} precision={0} value={table.cols} onChange={(v) => v && onResize(table.rows, v)} />
        </Form.Item>
      </Space>
      <Form.Item label={t('field.displayCondition')} validateStatus={err('displayCondition') ? 'error' : undefined}>
        <LimitedTextArea
          data-testid="table-condition"
          autoSize={{ minRows: 1, maxRows: 4 }}
          value={table.displayCondition ?? ''}
          max={500}
          onChange={(e) => onChange({ ...table, displayCondition: e.target.value })}
        />
        <div className="fd-condition-check">
          <ConditionCheck expression={table.displayCondition ?? ''} variables={variables} self={null} />
        </div>
      </Form.Item>
      {err('cells') && !/^cells\.\d/.test(issues.find((i) => i.componentId === table.id && i.field.startsWith('cells'))?.field ?? '') ? (
        <Alert type="error" showIcon title={err('cells')} />
      ) : null}
      <Divider titlePlacement="start" plain className="fd-divider">
        {t('table.cell')}
        {c ? ` (${c.row + 1}, ${c.col + 1})` : ''}
      </Divider>
      {!c ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('table.selectCell')} />
      ) : (
        <div data-testid="cell-editor">
          <Space wrap style={{ marginBottom: 12 }}>
            <Button size="small" data-testid="merge-down" onClick={() => onMerge('down')}>
              {t('table.mergeDown')}
            </Button>
            <Button size="small" data-testid="merge-right" onClick={() => onMerge('right')}>
              {t('table.mergeRight')}
            </Button>
            <Button size="small" data-testid="cell-split" disabled={c.rowSpan === 1 && c.colSpan === 1} onClick={onSplit}>
              {t('table.split')}
            </Button>
          </Space>
          {mergeError ? <Alert type="warning" showIcon title={mergeError} data-testid="merge-error" className="fd-merge-error" /> : null}
          <Form.Item label={t('cell.content')}>
            <Segmented
              data-testid="cell-kind"
              value={kind}
              options={[
                { value: 'empty', label: t('cell.empty') },
                { value: 'text', label: t('cell.text') },
                { value: 'field', label: t('cell.field') },
              ]}
              onChange={(v) => {
                if (v === 'empty') onCellChange({ text: undefined, textEn: undefined, component: undefined });
                else if (v === 'text') onCellChange({ text: c.text ?? t('cell.defaultText'), component: undefined });
                else onCellChange({ text: undefined, textEn: undefined, component: c.component ?? newField('text', draft.components, labels) });
              }}
            />
          </Form.Item>
          {kind === 'text' ? (
            <>
              <Form.Item label={t('cell.text')}>
                <LimitedInput data-testid="cell-text" value={c.text ?? ''} max={200} onChange={(e) => onCellChange({ text: e.target.value })} />
              </Form.Item>
              <Form.Item label={t('cell.textEn')}>
                <LimitedInput data-testid="cell-textEn" value={c.textEn ?? ''} max={200} onChange={(e) => onCellChange({ textEn: e.target.value })} />
              </Form.Item>
            </>
          ) : null}
          {c.component ? (
            <FieldProps
              field={c.component}
              issueId={table.id}
              prefix={`cells.${cellIndex}.component.`}
              issues={issues}
              variables={variables}
              allowTypeChange
              onChange={(patch) => onCellChange({ component: { ...c.component!, ...patch } })}
            />
          ) : null}
        </div>
      )}
    </>
  );
}

/** Which editor the selected component gets. */
export function isTable(c: FormComponent | undefined): c is TableComponent {
  return c?.type === 'table';
}
