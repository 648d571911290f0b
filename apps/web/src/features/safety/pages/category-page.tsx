import { useLocation } from 'react-router';
import { SAFETY_CATEGORIES, type SafetyCategory } from '@esource/shared';
import { CandidateList } from '../components/candidate-list';

/** /project/ae/6, /cm/9, /pr/13, /mh/14, /hiss/15: one category's judged records (and its candidates). */
export default function CategoryPage() {
  const { pathname } = useLocation();
  const seg = pathname.split('/')[2] as SafetyCategory;
  const category = SAFETY_CATEGORIES.includes(seg) ? seg : 'ae';
  return <CandidateList key={category} category={category} testId={`safety-${category}`} />;
}
