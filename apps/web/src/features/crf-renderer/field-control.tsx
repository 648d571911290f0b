import { Button, Checkbox, DatePicker, Input, InputNumber, Radio, Select, Space, Typography, Upload } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { FieldComponent } from '@esource/shared';
import { labelFor, roundTo } from './renderer-logic';

export const DATE_FORMAT = 'YYYY-MM-DD';
export const DATETIME_FORMAT = 'YYYY-MM-DD HH:mm';

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
          min={field.min}
          max={field.max}
          placeholder={placeholder}
          suffix={unit}
          onChange={(v) => onChange(v === null ? undefined : roundTo(v, field.precision))}
        />
      );
    case 'date':
    case 'datetime': {
      const fmt = field.type === 'date' ? DATE_FORMAT : DATETIME_FORMAT;
      const d = asString(value) ? dayjs(asString(value), fmt) : null;
      return (
        <DatePicker
          {...common}
          status={status}
          inputReadOnly={locked}
          open={locked ? false : undefined}
          showTime={field.type === 'datetime' ? { format: 'HH:mm' } : false}
          format={fmt}
          value={d && d.isValid() ? d : null}
          placeholder={placeholder}
          onChange={(v) => onChange(v ? v.format(fmt) : undefined)}
        />
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
      return (
        <Space data-testid={testId} wrap>
          <Upload
            disabled={disabled || locked}
            maxCount={1}
            showUploadList={false}
            beforeUpload={(file) => {
              onChange(file.name);
              return false;
            }}
          >
            <Button icon={<UploadOutlined />} disabled={disabled || locked} aria-label={ariaLabel}>
              {t('chooseFile')}
            </Button>
          </Upload>
          {asString(value) ? (
            <Typography.Text data-testid={`${testId}-name`}>{asString(value)}</Typography.Text>
          ) : (
            <Typography.Text type="secondary">{t('noFile')}</Typography.Text>
          )}
          {asString(value) && !locked && !disabled ? (
            <Button size="small" type="link" onClick={() => onChange(undefined)}>
              {t('removeFile')}
            </Button>
          ) : null}
        </Space>
      );
  }
}
