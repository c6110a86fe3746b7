// React hook of the page layout (agency_site/components/layout.py): where the visit came from,
// for the lead forms, with nothing stored in the browser (no cookie, no storage): on the first
// page of a visit it notes, in the page's memory only ($GLOBAL on window, kept while the visitor
// moves between pages, gone with the tab or a reload), the entry page's path, its utm_*
// parameters and the referring site's host (another site's only). On every form submit
// (capture phase, before React and the HTTP fallback read the form) it writes them, with the
// current page, into the form's hidden $FIELD input as JSON. Nothing leaves the browser unless
// the visitor sends a form; the server checks and bounds what it receives.
useEffect(() => {
  if (!window[$GLOBAL]) {
    const params = new URLSearchParams(location.search);
    const visit = { landing: location.pathname };
    for (const name of $UTM_KEYS) {
      const value = params.get(name);
      if (value) visit[name] = value.slice(0, 200);
    }
    try {
      const from = document.referrer ? new URL(document.referrer).hostname : "";
      if (from && from !== location.hostname) visit.referrer = from;
    } catch {}
    window[$GLOBAL] = Object.freeze(visit);
  }
  const onSubmit = (event) => {
    const input = event.target?.elements?.namedItem?.($FIELD);
    if (!input) return;
    input.value = JSON.stringify({ ...window[$GLOBAL], page: location.pathname });
  };
  document.addEventListener("submit", onSubmit, true);
  return () => document.removeEventListener("submit", onSubmit, true);
}, []);
