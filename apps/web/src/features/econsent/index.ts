/** E-consent participants (issue 15 item 7): the "Import from e-consent" drawer of the subject list. */
export { EconsentDrawer, type EconsentDrawerProps } from './components/econsent-drawer';
