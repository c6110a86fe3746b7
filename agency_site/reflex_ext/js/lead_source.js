// React hook of the page layout (agency_site/components/layout.py): where the visit came from,
// for the lead forms, without cookies. On the first page of a visit (per tab: sessionStorage,
// gone when the tab closes) it keeps the entry page's path, its utm_* parameters and the
// referring site's host (another site's only); on every form submit (capture phase, before
// React and the HTTP fallback read the form) it writes them, with the current page, into the
// form's hidden $FIELD input as JSON. The server checks and bounds what it receives.
useEffect(() => {
  const storageKey = $STORAGE_KEY;
  const remembered = () => {
    try {
      return JSON.parse(sessionStorage.getItem(storageKey) ?? "null");
    } catch {
      return null;
    }
  };
  if (!remembered()) {
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
    try {
      sessionStorage.setItem(storageKey, JSON.stringify(visit));
    } catch {}
  }
  const onSubmit = (event) => {
    const input = event.target?.elements?.namedItem?.($FIELD);
    if (!input) return;
    input.value = JSON.stringify({ ...(remembered() ?? {}), page: location.pathname });
  };
  document.addEventListener("submit", onSubmit, true);
  return () => document.removeEventListener("submit", onSubmit, true);
}, []);
