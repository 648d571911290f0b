/** What other features use of the layout (the layout itself, app-layout, is loaded by the router). */
export { LanguageSwitch } from './language-switch';
