// React hook of the booking form (agency_site/components/forms.py, _slot_filter_hook): the
// browser-side copy of leads/calendar.py. On every change of the date (and when the time
// select is opened, as time passes) the options of closed days and of today's slots that
// start too soon are hidden and disabled; a closed day also gets its Spanish message as the
// date's custom validity. The server still judges every booking.
// $CLOSED: {"YYYY-MM-DD": closure} of the non-working weekdays; $MESSAGES: {closure: text}.

useEffect(() => {
  const closed = $CLOSED;
  const messages = $MESSAGES;
  const slots = $SLOTS;
  const dateInput = document.getElementById($DATE_ID);
  const select = document.getElementById($TIME_ID);
  const form = document.getElementById($FORM_ID);
  if (!dateInput || !select) return undefined;
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
  const update = () => {
    const day = dateInput.value;
    const open = new Set(openSlots(day));
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
