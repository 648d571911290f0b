/**
 * Pre-fill from source records (issue 11 item 4): the review panel eCRF entry shows beside a form, the 'Source'
 * link of a pre-filled value and the source record drawer. The traceability report and the schedule are pages
 * and parts of pages of this feature, bound in routes/route-pages.ts and the mapping page.
 */
export { PrefillPanel, type PrefillPanelProps } from './components/prefill-panel';
export { PrefillButton } from './components/prefill-button';
export { SourceLink } from './components/source-link';
export { SourceRecordDrawer } from './components/source-record-drawer';
export { ScheduleConfig } from './components/schedule-config';
export { SubjectSelect } from './components/subject-select';
export { readableNumber } from './prefill-logic';
