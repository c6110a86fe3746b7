// React hook of the booking form (agency_site/components/form_hooks.py): today and a year from
// today in the agency's time zone ($TIME_ZONE), computed in the visitor's browser after
// hydration (a value prerendered at build time would go stale): bookingDates.min and .max.
// Computed once the browser is idle, not in the effect itself: the first formatter for a
// time zone loads its zone data (about 9 ms of a laptop's CPU, 36 ms of a phone's), and a
// tap while the page hydrates runs the hydration's effects before the tap is answered
// (`make bench-inp`, "tap on load"). The server still judges every date.

const [bookingDates, setBookingDates] = useState({});
useEffect(() => {
  const compute = () => {
    const parts = new Intl.DateTimeFormat("en-CA", {
      timeZone: $TIME_ZONE, year: "numeric", month: "2-digit", day: "2-digit",
    }).formatToParts(new Date());
    const part = (type) => parts.find((p) => p.type === type).value;
    const [year, month, day] = [part("year"), part("month"), part("day")];
    const nextDay = month === "02" && day === "29" ? "28" : day;
    setBookingDates({
      min: `${year}-${month}-${day}`,
      max: `${Number(year) + 1}-${month}-${nextDay}`,
    });
  };
  if (window.requestIdleCallback) {
    const idle = window.requestIdleCallback(compute, { timeout: 1000 });
    return () => window.cancelIdleCallback(idle);
  }
  const timer = setTimeout(compute, 0);
  return () => clearTimeout(timer);
}, []);
