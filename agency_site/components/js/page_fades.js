// React hook of the page layout (agency_site/state/ui.py, page_fades): pageFades is true when
// this page was reached by a client-side navigation (menu_effects.js sets the flag once the
// first page has hydrated). Read once per mount, so re-renders never replay the fade.

const [pageFades] = useState(() => typeof window !== 'undefined' && window.$NAVIGATED_FLAG === true);
