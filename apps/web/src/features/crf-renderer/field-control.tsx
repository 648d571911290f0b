import { Checkbox, DatePicker, Input, InputNumber, Radio, Select, Space, TimePicker } from 'antd';
import { useState } from 'react';
import dayjs from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat';
import { useTranslation } from 'react-i18next';
import { joinDateTime, partialDateSpan, splitDateTime, type FieldComponent } from '@esource/shared';
import { labelFor, roundTo } from './renderer-logic';
import { FileItem } from './file-item';

dayjs.extend(customParseFormat);

export const DATE_FORMAT = 'YYYY-MM-DD';
export const DATETIME_FORMAT = 'YYYY-MM-DD HH:mm';
export const TIME_FORMAT = 'HH:mm';

export interface FieldControlProps {
  field: FieldComponent;
  value: unknown;
  onChange: (value: unknown) => void;
  language: string;
  /** the whole form is read-only (e.g. a locked record, the designer of a published version) */
  readOnly?: boolean;
  invalid?: boolean;
  /** shown as the accessible name when the label is not drawn (table cells) */
  ariaLabel?: string;
}

const asString = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const asList = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => asString(x)) : []);
/** A strictly parsed day or time (2026-02-31 is not rolled over into March), or null. */
const asDay = (s: string, fmt: string) => {
  if (!s) return null;
  const d = dayjs(s, fmt, true);
  return d.isValid() ? d : null;
};

type Precision = 'day' | 'month' | 'year';
const precisionOf = (v: string): Precision => (/^\d{4}$/.test(v) ? 'year' : /^\d{4}-\d{2}$/.test(v) ? 'month' : 'day');
const PARTIAL_FORMAT: Record<Precision, string> = { day: DATE_FORMAT, month: 'YYYY-MM', year: 'YYYY' };

/**
 * A date the designer allows to be partial: how much is known (day / month / year) and a picker of that
 * precision; the value is ISO 8601 truncated (YYYY-MM-DD, YYYY-MM, YYYY), as SDTM stores partial dates.
 */
function PartialDateControl({
  field,
  value,
  onChange,
  locked,
  common,
  status,
}: {
  field: FieldComponent;
  value: string;
  onChange: (v: unknown) => void;
  locked: boolean;
  common: { disabled: boolean; 'aria-label': string | undefined; 'data-testid': string };
  status: 'error' | undefined;
}) {
  const { t } = useTranslation('crf');
  const [chosen, setChosen] = useState<Precision>(() => precisionOf(value));
  const precision = value ? precisionOf(value) : chosen;
  const fmt = PARTIAL_FORMAT[precision];
  const picked = value && (precision === 'day' || partialDateSpan(value)) ? asDay(value, fmt) : null;
  return (
    <Space.Compact>
      <Select<Precision>
        disabled={common.disabled || locked}
        aria-label={t('partial.label')}
        data-testid={`${common['data-testid']}-precision`}
        value={precision}
        style={{ width: 200 }}
        options={(['day', 'month', 'year'] as const).map((p) => ({ value: p, label: t(p === 'day' ? 'partial.full' : `partial.${p}`) }))}
        onChange={(p) => {
          setChosen(p);
          // keep what is known: a full date cut to its month or year, never a guessed day
          if (value) onChange(p === 'year' ? value.slice(0, 4) : p === 'month' && value.length >= 7 ? value.slice(0, 7) : undefined);
        }}
      />
      <DatePicker
        {...common}
        status={status}
        picker={precision === 'day' ? 'date' : precision}
        inputReadOnly={locked}
        open={locked ? false : undefined}
        format={fmt}
        value={picked}
        placeholder={field.placeholder ?? t(precision === 'day' ? 'placeholder.date' : `placeholder.${precision}`)}
        onChange={(v) => onChange(v ? v.format(fmt) : undefined)}
      />
    </Space.Compact>
  );
}

/** One input of an eCRF item, by type; values are strings, numbers (number) or string lists (checkbox). */
export function FieldControl({ field, value, onChange, language, readOnly, invalid, ariaLabel }: FieldControlProps) {
  const { t } = useTranslation('crf');
  const disabled = Boolean(field.disabled);
  const locked = Boolean(readOnly || field.readOnly);
  const status = invalid ? ('error' as const) : undefined;
  const testId = `crf-input-${field.variable}`;
  const options = (field.options ?? []).map((o) => ({ value: o.value, label: labelFor(o, language) }));
  const placeholder = field.placeholder;
  const unit = field.unit ? <span className="crf-unit">{field.unit}</span> : undefined;
  const common = { disabled, 'aria-label': ariaLabel, 'data-testid': testId };

  switch (field.type) {
    case 'text':
      return (
        <Input
          {...common}
          status={status}
          readOnly={locked}
          value={asString(value)}
          placeholder={placeholder}
          suffix={unit}
          onChange={(e) => onChange(e.target.value)}
        />
      );
    case 'textarea':
      return (
        <Input.TextArea
          {...common}
          status={status}
          readOnly={locked}
          autoSize={{ minRows: 2, maxRows: 6 }}
          value={asString(value)}
          placeholder={placeholder}
          onChange={(e) => onChange(e.target.value)}
        />
      );
    case 'number':
      return (
        <InputNumber<number>
          {...common}
          status={status}
          readOnly={locked}
          style={{ width: '100%', maxWidth: 240 }}
          value={typeof value === 'number' ? value : value === undefined || value === null || value === '' ? null : Number(value)}
          precision={field.precision}
          // no min/max here: antd clamps to them on blur, which would change what the user typed; the range is
          // checked by the shared rules and shown next to the field (hard: refused, soft: flagged)
          placeholder={placeholder}
          suffix={unit}
          onChange={(v) => onChange(v === null ? undefined : roundTo(v, field.precision))}
        />
      );
    case 'date':
      return field.partialDate ? (
        <PartialDateControl field={field} value={asString(value)} onChange={onChange} locked={locked} common={common} status={status} />
      ) : (
        <DatePicker
          {...common}
          status={status}
          inputReadOnly={locked}
          open={locked ? false : undefined}
          format={DATE_FORMAT}
          value={asDay(asString(value), DATE_FORMAT)}
          placeholder={placeholder ?? t('placeholder.date')}
          onChange={(v) => onChange(v ? v.format(DATE_FORMAT) : undefined)}
        />
      );
    case 'datetime': {
      // a date and a time of their own: a date without its time stays visible (and is refused with a message)
      // instead of being dropped by a single picker that waits for both
      const { date, time } = splitDateTime(asString(value));
      const set = (d: string, tm: string) => onChange(joinDateTime(d, tm) || undefined);
      return (
        <Space.Compact data-testid={`${testId}-group`}>
          <DatePicker
            {...common}
            status={status}
            inputReadOnly={locked}
            open={locked ? false : undefined}
            format={DATE_FORMAT}
            value={asDay(date, DATE_FORMAT)}
            placeholder={placeholder ?? t('placeholder.datetime')}
            style={{ minWidth: 190 }}
            onChange={(v) => set(v ? v.format(DATE_FORMAT) : '', time)}
          />
          <TimePicker
            disabled={disabled}
            aria-label={ariaLabel ? `${ariaLabel} (${t('placeholder.time')})` : t('placeholder.time')}
            data-testid={`${testId}-time`}
            status={status}
            inputReadOnly={locked}
            open={locked ? false : undefined}
            format={TIME_FORMAT}
            needConfirm={false}
            value={asDay(time, TIME_FORMAT)}
            placeholder={t('placeholder.time')}
            style={{ minWidth: 150 }}
            onChange={(v) => set(date, v ? v.format(TIME_FORMAT) : '')}
          />
        </Space.Compact>
      );
    }
    case 'radio':
      return (
        <Radio.Group
          disabled={disabled || locked}
          aria-label={ariaLabel}
          data-testid={testId}
          value={asString(value) || undefined}
          options={options}
          onChange={(e) => onChange(e.target.value as string)}
        />
      );
    case 'checkbox':
      return (
        <Checkbox.Group
          disabled={disabled || locked}
          aria-label={ariaLabel}
          data-testid={testId}
          value={asList(value)}
          options={options}
          onChange={(v) => onChange(v.map(String))}
        />
      );
    case 'select':
      return (
        <Select
          {...common}
          status={status}
          open={locked ? false : undefined}
          allowClear={!locked}
          style={{ width: '100%', maxWidth: 320 }}
          value={asString(value) || undefined}
          options={options}
          placeholder={placeholder ?? t('choose')}
          onChange={(v: string | undefined) => onChange(v)}
        />
      );
    case 'file':
      return <FileItem value={asString(value)} onChange={onChange} disabled={disabled || locked} testId={testId} ariaLabel={ariaLabel} />;
  }
}
