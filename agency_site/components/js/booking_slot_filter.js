// React hook of the booking form (agency_site/components/form_hooks.py, slot_filter): the
// browser-side copy of working_calendar.py. On every change of the date (and when the time
// select is opened, as time passes) the options of closed days and of today's slots that
// start too soon are hidden and disabled; a closed day also gets its message (in the page's language) as the
// date's custom validity. The server still judges every booking.
// $CLOSED: {"YYYY-MM-DD": closure} of the non-working weekdays; $MESSAGES: {closure: text}.
// Slots already requested by someone else: once a day is chosen the backend is asked which of
// its slots are taken ($FREE_SLOTS_URL?date=..., a plain GET, no websocket) and those are
// hidden too (all of them when the day is full); if it does not answer, the calendar's slots stay offered (the server refuses a
// taken one with the nearest free ones). The times are the agency's ($TIME_ZONE): when the
// visitor's clock differs on that day, each option shows their local time too ($LOCAL_LABEL
// with {slot} and {local}) and the $ZONE_NOTE_ID element names their zone. $LANG: the page's language.

useEffect(() => {
  const closed = $CLOSED;
  const messages = $MESSAGES;
  const slots = $SLOTS;
  const dateInput = document.getElementById($DATE_ID);
  const select = document.getElementById($TIME_ID);
  const form = document.getElementById($FORM_ID);
  if (!dateInput || !select) return undefined;
  const zoneNote = document.getElementById($ZONE_NOTE_ID);
  // Read at the first use, not at mount: the first Intl formatter of a page loads the time
  // zone data (36 ms of a phone's CPU), and a tap while the page hydrates waits for the
  // hydration's effects (booking_date_bounds.js creates the first one once the browser idles).
  let visitorZone = "";
  const zone = () => (visitorZone ||= Intl.DateTimeFormat().resolvedOptions().timeZone);
  const free = new Map(); // day -> {slots: Set, at: ms}
  let asked = "";
  const nowInAgency = () => {
    const parts = new Intl.DateTimeFormat("en-CA", {
      timeZone: $TIME_ZONE, year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23",
    }).formatToParts(new Date());
    const part = (type) => parts.find((p) => p.type === type).value;
    const seconds = Number(part("hour")) * 3600 + Number(part("minute")) * 60 + Number(part("second"));
    return { day: `${part("year")}-${part("month")}-${part("day")}`, ms: seconds * 1000 };
  };
  const closure = (day) => {
    const [year, month, date] = day.split("-").map(Number);
    const weekday = new Date(Date.UTC(year, month - 1, date)).getUTCDay();
    const why = weekday === 0 || weekday === 6 ? $WEEKEND : closed[day];
    return why ? messages[why] : "";
  };
  const openSlots = (day) => {
    if (!day) return slots;
    if (closure(day)) return [];
    const now = nowInAgency();
    if (day !== now.day) return slots;
    return slots.filter((slot) => {
      const [hour, minute] = slot.split(":").map(Number);
      return (hour * 3600 + minute * 60) * 1000 - now.ms >= $NOTICE_MS;
    });
  };
  const agencyInstant = (day, slot) => {
    const [year, month, date] = day.split("-").map(Number);
    const [hour, minute] = slot.split(":").map(Number);
    const guess = Date.UTC(year, month - 1, date, hour, minute);
    const parts = new Intl.DateTimeFormat("en-CA", {
      timeZone: $TIME_ZONE, year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", hourCycle: "h23",
    }).formatToParts(new Date(guess));
    const part = (type) => Number(parts.find((p) => p.type === type).value);
    const shown = Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"));
    return new Date(guess - (shown - guess));
  };
  const localLabels = (day) => {
    let differs = false;
    for (const option of select.options) {
      if (!option.value) continue;
      const instant = day ? agencyInstant(day, option.value) : null;
      const local = instant?.toLocaleTimeString($LANG, {
        hour: "2-digit", minute: "2-digit", timeZone: zone(),
      });
      if (local && local !== option.value) {
        differs = true;
        option.label = $LOCAL_LABEL.replace("{slot}", option.value).replace("{local}", local);
      } else {
        option.removeAttribute("label");
      }
    }
    if (zoneNote) zoneNote.hidden = !differs;
    if (zoneNote && differs) zoneNote.textContent = $ZONE_NOTE.replace("{zone}", zone());
  };
  const askFree = (day) => {
    const known = free.get(day);
    if (!day || asked === day || (known && Date.now() - known.at < 30000)) return;
    asked = day;
    fetch(`${$FREE_SLOTS_URL}?date=${encodeURIComponent(day)}`, { headers: { Accept: "application/json" } })
      .then((response) => (response.ok ? response.json() : null))
      .then((answer) => {
        if (answer && Array.isArray(answer.taken)) {
          free.set(day, { taken: new Set(answer.taken), full: answer.full === true, at: Date.now() });
          if (dateInput.value === day) update();
        }
      })
      .catch(() => {})
      .finally(() => {
        if (asked === day) asked = "";
      });
  };
  const update = () => {
    const day = dateInput.value;
    const known = free.get(day);
    const open = new Set(
      known?.full ? [] : openSlots(day).filter((slot) => !known?.taken.has(slot)),
    );
    askFree(day);
    localLabels(day);
    for (const option of select.options) {
      if (!option.value) continue;
      const off = !open.has(option.value);
      option.disabled = off;
      option.hidden = off;
    }
    if (select.value && !open.has(select.value)) select.value = "";
    dateInput.setCustomValidity(day ? closure(day) : "");
  };
  const afterReset = () => setTimeout(update, 0);
  update();
  dateInput.addEventListener("input", update);
  dateInput.addEventListener("change", update);
  select.addEventListener("focus", update);
  select.addEventListener("pointerdown", update);
  form?.addEventListener("reset", afterReset);
  return () => {
    dateInput.removeEventListener("input", update);
    dateInput.removeEventListener("change", update);
    select.removeEventListener("focus", update);
    select.removeEventListener("pointerdown", update);
    form?.removeEventListener("reset", afterReset);
  };
}, []);
