import { api, ApiError } from '../../../lib/api-client';
import type { Page, ProjectRow } from '../../projects';

export interface SearchHit {
  kind: 'project' | 'subject' | 'document';
  id: number;
  no: string;
  name: string;
  projectId?: number;
}

/**
 * GET /search?q= (centre users, project:search:query). Until the server has it (404), falls back to the
 * project list's keyword search so that the palette still finds projects.
 */
export async function search(q: string): Promise<SearchHit[]> {
  try {
    return await api.get<SearchHit[]>('/search', { q }, { silent: true });
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== 404) throw e;
    const page = await api.post<Page<ProjectRow>>(
      '/pro/info/page',
      { pageNumber: 1, pageSize: 50, keyword: q },
      { silent: true },
    );
    return page.content.map((p) => ({ kind: 'project', id: p.id, no: p.no, name: p.name }));
  }
}
