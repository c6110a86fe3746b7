// React hook of a form with selects (agency_site/components/form_hooks.py, preselect): the
// page's query chooses them (/contact?service=branding&pack=esencial). A value no option
// has is ignored, and so is an option whose data-group is not the value of the field its
// select depends on ($DEPENDS: {field: field it depends on, or ""}). The path stays the
// page's; nothing is sent anywhere.
useEffect(() => {
  const form = document.getElementById($FORM_ID);
  if (!form) return;
  const query = new URLSearchParams(window.location.search);
  for (const [name, parent] of Object.entries($DEPENDS)) {
    const select = form.elements.namedItem(name);
    const value = query.get(name);
    if (!select || !select.options || !value) continue;
    const group = parent ? form.elements.namedItem(parent)?.value : null;
    const option = Array.from(select.options).find(
      (item) => item.value === value && (!parent || item.dataset.group === group),
    );
    if (option) select.value = value;
  }
}, []);
