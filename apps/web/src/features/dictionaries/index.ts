/** Dictionaries (issue 13 item 5): what other features use — the coding field. */
export {
  DictionaryPicker,
  type DictionaryPickerProps,
  type DictionaryValue,
} from './components/dictionary-picker';
export { dictionariesKey } from './api/dictionaries-api';
