import { useCallback, useState } from 'react';
import type { ItemValues } from '@esource/shared';
import { validateForm, type FieldErrors, type RenderableForm } from './renderer-logic';

/**
 * State for a FormRenderer: values, errors shown after the first validate() (then kept live as values change).
 */
export function useCrfForm(definition: RenderableForm, initial: ItemValues = {}) {
  const [values, setValues] = useState<ItemValues>(initial);
  const [validated, setValidated] = useState(false);
  const errors: FieldErrors = validated ? validateForm(definition.components, values) : {};
  const validate = useCallback((): FieldErrors => {
    setValidated(true);
    return validateForm(definition.components, values);
  }, [definition.components, values]);
  const reset = useCallback((v: ItemValues = {}) => {
    setValues(v);
    setValidated(false);
  }, []);
  return { values, setValues, errors, validate, reset, rendererProps: { definition, values, onChange: setValues, errors } };
}
