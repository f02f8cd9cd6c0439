/** The id of a filter form's refusal, for the form's aria-describedby. */
export const filterRefusalId = (formId: string): string => `${formId}-refused`;

/**
 * Why a filter was refused, above its form (which keeps what was typed): announced at once
 * (role=alert) and describing the form (aria-describedby={filterRefusalId(formId)}).
 */
export function FilterRefusalNotice(props: { formId: string; message?: string }) {
  if (!props.message) return null;
  return (
    <div id={filterRefusalId(props.formId)} class="notice error" role="alert">
      {props.message}
    </div>
  );
}
