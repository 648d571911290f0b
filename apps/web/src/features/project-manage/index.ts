export { ProjectDialog } from './components/project-dialog';
