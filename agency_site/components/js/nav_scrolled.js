// React hook of the navbar (agency_site/state/ui.py, nav_scrolled): navScrolled is true once
// the page has scrolled more than $THRESHOLD_PX pixels; computed in the browser, no traffic.

const [navScrolled, setNavScrolled] = useState(false);
useEffect(() => {
  const onScroll = () => setNavScrolled(window.scrollY > $THRESHOLD_PX);
  onScroll();
  window.addEventListener("scroll", onScroll, { passive: true });
  return () => window.removeEventListener("scroll", onScroll);
}, []);
