// A lead form's proof of work (agency_site/leads/spam/challenge.py): when the form shows
// the ALTCHA widget (a suspect submission, answered "challenge" over either path), the
// site's starter $STARTER_URL is added to the page, once: it loads the widget, solves the
// challenge and sends the form again. A person who is never challenged loads nothing.
useEffect(() => {
  const form = document.getElementById($FORM_ID);
  if (!form) return undefined;
  const load = () => {
    if (!form.querySelector("altcha-widget")) return;
    if (document.querySelector("script[data-altcha-starter]")) return;
    const script = document.createElement("script");
    script.src = $STARTER_URL;
    script.dataset.altchaStarter = "true";
    document.head.append(script);
  };
  const observer = new MutationObserver(load);
  observer.observe(form, { childList: true, subtree: true });
  load();
  return () => observer.disconnect();
}, []);
