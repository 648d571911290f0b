import { Segmented } from 'antd';
import { useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { CandidateList } from '../components/candidate-list';

/** /project/clinical/2 (to judge) and /project/clinical/3 (judged): the candidates of every category. */
export default function ClinicalPage() {
  const { t } = useTranslation('safety');
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const judged = pathname.endsWith('/3');
  return (
    <>
      <Segmented
        value={judged ? '3' : '2'}
        onChange={(v) => void navigate(`/project/clinical/${v}`)}
        options={[
          { value: '2', label: <span data-testid="clinical-nav-2">{t('state.toJudge')}</span> },
          { value: '3', label: <span data-testid="clinical-nav-3">{t('state.judged')}</span> },
        ]}
        style={{ marginBottom: 12 }}
      />
      <CandidateList key={judged ? 'judged' : 'toJudge'} state={judged ? 'judged' : 'toJudge'} testId={judged ? 'clinical-judged' : 'clinical-to-judge'} />
    </>
  );
}
