import { lazy, Suspense } from 'react';
import { useSearchParams } from 'react-router';
import { PageSpinner } from '../components/page-spinner';

const FormDesigner = lazy(() => import('../features/form-designer/pages/form-designer-page'));
const MicroCrfConfig = lazy(() => import('../features/ddc/pages/micro-crf-config-page'));

/**
 * /project/microCrfConfig (spec §2 standalone route): with a design version (`versionId`, as every link of the
 * design page carries) the form designer; without one, the micro CRF settings — what shared forms show
 * (docs/decisions.md "Shared forms").
 */
export default function MicroCrfConfigRoute() {
  const [params] = useSearchParams();
  return (
    <Suspense fallback={<PageSpinner />}>
      {params.get('versionId') ? <FormDesigner /> : <MicroCrfConfig />}
    </Suspense>
  );
}
