/** Shown while a lazy page or the user's info loads (also the router's HydrateFallback). Plain CSS: no antd here. */
export function PageSpinner() {
  return (
    <div className="esource-spinner-wrap" role="status" aria-busy="true">
      <span className="esource-spinner" />
    </div>
  );
}
