import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';

/** CTCAE grade colours: 1 green … 5 dark red (the signal report uses the same). */
export const GRADE_COLOR: Record<number, string> = { 1: '#52c41a', 2: '#faad14', 3: '#fa8c16', 4: '#f5222d', 5: '#820014' };

/** A CTCAE grade, or "out of range, not graded" when the generator could not grade it. */
export function GradeTag({ grade, outOfRange }: { grade: number | null | undefined; outOfRange?: boolean }) {
  const { t } = useTranslation('safety');
  if (grade === null || grade === undefined) {
    return outOfRange ? (
      <Tooltip title={t('grade.notGradedHint')}>
        <Tag>{t('grade.notGraded')}</Tag>
      </Tooltip>
    ) : (
      <span>—</span>
    );
  }
  if (grade === 0) return <Tag>{t('grade.normal')}</Tag>;
  return (
    <Tag color={GRADE_COLOR[grade]} data-testid="grade-tag">
      {t('grade.label', { grade })}
    </Tag>
  );
}
