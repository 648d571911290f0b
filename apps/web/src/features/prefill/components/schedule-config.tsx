import { useEffect, useState } from 'react';
import { Alert, App, Button, Card, Checkbox, DatePicker, Form, Radio, Result, Select, Skeleton, Space, Switch, Typography } from 'antd';
import { ReloadOutlined, SaveOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from 'dayjs';
import { PREFILL_FREQUENCIES, scheduleDayProblems } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { serverFieldErrors } from '../../../lib/validate-form';
import { usePms, useSession } from '../../session';
import { prefillApi, scheduleQuery } from '../api/prefill-api';

interface Values {
  range: [Dayjs, Dayjs] | null;
  frequency: (typeof PREFILL_FREQUENCIES)[number];
  weekdays: number[];
  monthDays: number[];
  enabled: boolean;
}

const WEEKDAYS = [1, 2, 3, 4, 5, 6, 7];
const MONTH_DAYS = Array.from({ length: 31 }, (_, i) => i + 1);

/**
 * The project's pre-fill schedule in this environment (spec §3 Prefill schedule config): start and end date,
 * daily / weekly (weekdays) / monthly (days of the month), on or off. Read-only without crf:prefill:config.
 */
export function ScheduleConfig() {
  const { t } = useTranslation('prefill');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const has = usePms();
  const canEdit = has('crf:prefill:config');
  const q = useQuery(scheduleQuery({ env, projectId }));
  const [form] = Form.useForm<Values>();
  const frequency = Form.useWatch('frequency', form);
  const [general, setGeneral] = useState<string | null>(null);
  const [stale, setStale] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const s = q.data;

  const fill = () => {
    form.setFieldsValue({
      range: s ? [dayjs(s.startDate), dayjs(s.endDate)] : null,
      frequency: s?.frequency ?? 'daily',
      weekdays: s?.frequency === 'weekly' ? s.days : [],
      monthDays: s?.frequency === 'monthly' ? s.days : [],
      enabled: s?.enabled ?? true,
    });
  };
  useEffect(fill, [s, form]);

  const save = async (v: Values) => {
    const days = v.frequency === 'weekly' ? v.weekdays : v.frequency === 'monthly' ? v.monthDays : [];
    setBusy(true);
    setGeneral(null);
    try {
      await prefillApi.saveSchedule({
        startDate: v.range![0].format('YYYY-MM-DD'),
        endDate: v.range![1].format('YYYY-MM-DD'),
        frequency: v.frequency,
        days: [...days].sort((a, b) => a - b),
        enabled: v.enabled,
        ...(s ? { version: s.version } : {}),
      });
      void message.success(t('schedule.saved'));
      await qc.invalidateQueries({ queryKey: ['prefill', 'schedule'] });
    } catch (e) {
      if (e instanceof ApiError && /STALE/.test(e.errorCode)) setStale(e.message);
      else if (e instanceof ApiError && e.detail.length) {
        const field = (f: string) => (f === 'days' ? (v.frequency === 'weekly' ? 'weekdays' : 'monthDays') : f === 'startDate' || f === 'endDate' ? 'range' : f);
        form.setFields(serverFieldErrors(e, (f) => field(f) as keyof Values));
        setGeneral(e.message);
      } else setGeneral(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  if (q.isError)
    return (
      <Result
        status="warning"
        title={t('schedule.loadFailed')}
        subTitle={q.error.message}
        extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
      />
    );
  if (q.isLoading) return <Skeleton active />;

  return (
    <Card size="small" data-testid="schedule-config" title={t('schedule.title')} style={{ maxWidth: 760 }}>
      <Typography.Paragraph type="secondary">{t('schedule.intro')}</Typography.Paragraph>
      {!canEdit ? <Alert type="info" showIcon style={{ marginBottom: 12 }} title={t('schedule.readOnly')} /> : null}
      {!s ? (
        <Alert type="info" showIcon style={{ marginBottom: 12 }} title={t('schedule.none')} data-testid="schedule-none" />
      ) : null}
      {stale ? (
        <Alert
          type="error"
          showIcon
          style={{ marginBottom: 12 }}
          title={stale}
          action={
            <Button
              size="small"
              icon={<ReloadOutlined />}
              onClick={() => {
                setStale(null);
                void q.refetch().then(fill);
              }}
            >
              {t('reload')}
            </Button>
          }
        />
      ) : null}
      {general ? (
        <Alert type="error" showIcon closable={{ onClose: () => setGeneral(null) }} style={{ marginBottom: 12 }} title={general} data-testid="schedule-error" />
      ) : null}
      <Form<Values>
        form={form}
        layout="horizontal"
        labelCol={{ flex: '140px' }}
        disabled={!canEdit}
        onFinish={(v) => void save(v)}
        initialValues={{ frequency: 'daily', weekdays: [], monthDays: [], enabled: true, range: null }}
      >
        <Form.Item
          name="range"
          label={t('schedule.period')}
          rules={[{ required: true, message: t('schedule.periodRequired') }]}
        >
          <DatePicker.RangePicker
            placeholder={[t('schedule.start'), t('schedule.end')]}
            data-testid="schedule-range"
          />
        </Form.Item>
        <Form.Item name="frequency" label={t('schedule.frequency')} rules={[{ required: true }]}>
          <Radio.Group
            optionType="button"
            data-testid="schedule-frequency"
            options={PREFILL_FREQUENCIES.map((f) => ({
              value: f,
              label: <span data-testid={`schedule-frequency-${f}`}>{t(`schedule.freq.${f}`)}</span>,
            }))}
          />
        </Form.Item>
        {frequency === 'weekly' ? (
          <Form.Item
            name="weekdays"
            label={t('schedule.weekdays')}
            rules={[{ validator: (_, v: number[]) => (scheduleDayProblems('weekly', v).length ? Promise.reject(new Error(t('schedule.weekdaysRequired'))) : Promise.resolve()) }]}
          >
            <Checkbox.Group
              data-testid="schedule-weekdays"
              options={WEEKDAYS.map((d) => ({ value: d, label: t(`schedule.weekday.${d}`) }))}
            />
          </Form.Item>
        ) : null}
        {frequency === 'monthly' ? (
          <Form.Item
            name="monthDays"
            label={t('schedule.monthDays')}
            extra={t('schedule.monthDaysHint')}
            rules={[{ validator: (_, v: number[]) => (scheduleDayProblems('monthly', v).length ? Promise.reject(new Error(t('schedule.monthDaysRequired'))) : Promise.resolve()) }]}
          >
            <Select
              mode="multiple"
              allowClear
              style={{ maxWidth: 420 }}
              placeholder={t('schedule.monthDaysPlaceholder')}
              data-testid="schedule-month-days"
              options={MONTH_DAYS.map((d) => ({ value: d, label: t('schedule.monthDay', { day: d }) }))}
            />
          </Form.Item>
        ) : null}
        <Form.Item name="enabled" label={t('schedule.enabled')} valuePropName="checked">
          <Switch data-testid="schedule-enabled" />
        </Form.Item>
        {s ? (
          <Form.Item label={t('schedule.lastRun')}>
            <Typography.Text type="secondary" data-testid="schedule-last-run">
              {s.lastRunOn ?? t('schedule.never')} · {t('schedule.updated', { who: s.updatedBy ?? '—', when: dayjs(s.updateTime).format('YYYY-MM-DD HH:mm') })}
            </Typography.Text>
          </Form.Item>
        ) : null}
        {canEdit ? (
          <Form.Item label=" " colon={false}>
            <Space>
              <Button type="primary" htmlType="submit" icon={<SaveOutlined />} loading={busy} data-testid="schedule-save">
                {t('schedule.save')}
              </Button>
              <Button onClick={fill} disabled={busy}>
                {t('schedule.reset')}
              </Button>
            </Space>
          </Form.Item>
        ) : null}
      </Form>
    </Card>
  );
}
