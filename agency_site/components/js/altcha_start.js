// The site's starter of the ALTCHA widget (agency_site/leads/spam/widget.py), served beside
// it as /altcha/altcha-start.js and added to a page only when a form shows a widget (a
// suspect submission's proof of work, agency_site/leads/spam/challenge.py). A classic
// script, once per page: it loads the widget's external build and styles from its own
// folder (no inline script, no blob: worker: the page's hashed CSP holds), registers the
// worker file of each widget's algorithm (data-algorithm, data-worker) and its words (its
// data-strings, from the site's YAML), and
// starts every widget that shows a new challenge (its own attribute, or its holder's
// data-challenge: the form's, drawn by React). Solved, the payload goes into the form's
// field named by data-field, and with data-submit="true" the form is sent again by itself:
// the same submission (its key unchanged), now carrying its proof.
(() => {
  if (globalThis.__siteAltchaStarted) return;
  globalThis.__siteAltchaStarted = true;
  const here = document.currentScript?.src ?? `${location.origin}/altcha/altcha-start.js`;
  const asset = (name) => new URL(name, here).href;

  const styles = document.createElement("link");
  styles.rel = "stylesheet";
  styles.href = asset("altcha.css");
  document.head.append(styles);
  const widgetScript = document.createElement("script");
  widgetScript.type = "module"; // Its top-level names stay its own.
  widgetScript.src = asset("altcha.min.js");
  document.head.append(widgetScript);

  const solving = new WeakMap(); // widget -> the challenge it was started on
  const verify = (widget) => {
    if (typeof widget.verify === "function") {
      widget.verify();
    } else {
      widget.addEventListener("load", () => widget.verify(), { once: true });
    }
  };
  const start = (widget) => {
    // Its own attribute (the backend's page), else its holder's (the page's form).
    const challenge =
      widget.closest("[data-challenge]")?.dataset.challenge || widget.getAttribute("challenge");
    if (!challenge || solving.get(widget) === challenge) return;
    solving.set(widget, challenge);
    if (widget.getAttribute("challenge") !== challenge) widget.setAttribute("challenge", challenge);
    const { algorithm, worker } = widget.dataset;
    if (algorithm && worker && !globalThis.$altcha.algorithms.has(algorithm)) {
      globalThis.$altcha.algorithms.set(algorithm, () => new Worker(asset(worker)));
    }
    const language = widget.getAttribute("language") || document.documentElement.lang || "en";
    try {
      const words = JSON.parse(widget.dataset.strings || "{}");
      const i18n = globalThis.$altcha.i18n;
      i18n.set(language, { ...(i18n.get("en") ?? {}), ...words });
    } catch {
      // Its own English words, then.
    }
    // The next task: the widget has taken its new attributes by then.
    setTimeout(() => verify(widget), 0);
  };
  const onVerified = (event) => {
    const widget = event.target;
    if (!(widget instanceof Element) || widget.localName !== "altcha-widget") return;
    const form = widget.closest("form");
    const field = form?.elements.namedItem(widget.dataset.field ?? "");
    if (!form || !field) return;
    field.value = event.detail?.payload ?? "";
    // The next task: the widget's own (required) checkbox is checked by then.
    if (widget.dataset.submit === "true") setTimeout(() => form.requestSubmit(), 0);
  };
  const scan = () => {
    for (const widget of document.querySelectorAll("altcha-widget")) start(widget);
  };

  customElements.whenDefined("altcha-widget").then(() => {
    // "verified" does not bubble: caught on its way down (capture).
    document.addEventListener("verified", onVerified, true);
    scan();
    new MutationObserver(scan).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["challenge", "data-challenge"],
    });
  });
})();
