export { FormRenderer, type FormRendererProps } from './form-renderer';
export { FieldControl } from './field-control';
export { useCrfForm } from './use-crf-form';
export {
  applyConditions,
  browserClock,
  fieldError,
  formWarnings,
  isEmptyValue,
  labelFor,
  roundTo,
  shownVariables,
  validateForm,
  type FieldError,
  type FieldErrors,
  type RenderableForm,
} from './renderer-logic';
