// A lead form's way round a websocket that is down (agency_site/components/forms.py): the
// same submission goes to the form's own HTTP endpoint (its `action`, the path the form
// uses without JavaScript) with `fetch`, and the answer is shown in place through two
// ClientStateVars (result, field errors). Runs in the capture phase on the form, before
// React's onSubmit: while the form is offline (its data-offline, from Reflex's connection
// errors, which come late) the submit never reaches the websocket; otherwise it goes over
// the websocket and is watched: sent over HTTP too when the socket is still not connected
// $CONNECT_MS ms after the submit (blocked or refused), or drops before the answer. The
// hidden `$KEY_FIELD` carries one key per submission (a new one when the content
// changes), so a submission tried over both paths is stored and sent once.
useEffect(() => {
  const form = document.getElementById($FORM_ID);
  if (!form) return undefined;
  const keyInput = form.elements.namedItem($KEY_FIELD);
  const setResult = (value) => refs[$SET_RESULT]?.(value);
  const setErrors = (value) => refs[$SET_ERRORS]?.(value);
  let lastContent = null;
  let hideTimer = null;
  let watchTimer = null;
  let sentOverHttp = false;

  const content = () => {
    const data = new URLSearchParams(new FormData(form));
    data.delete($KEY_FIELD);
    return data.toString();
  };
  const newKey = () =>
    globalThis.crypto?.randomUUID?.().replaceAll("-", "") ??
    Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join("");
  const offline = () => form.dataset.offline === "true";
  const busy = () => form.getAttribute("aria-busy") === "true";

  const show = (answer) => {
    clearTimeout(hideTimer);
    const result = answer.result === "refused" ? "store_failed" : answer.result;
    setErrors(answer.errors ?? {});
    setResult(result === "invalid" ? "" : result);
    if (result === "sent" || result === "queued") {
      form.reset();
      keyInput.value = "";
      lastContent = null;
    }
    if (result === "sent") {
      hideTimer = setTimeout(() => setResult(""), $SUCCESS_MS);
    }
    const wrong = Object.keys(answer.errors ?? {})[0];
    if (wrong) form.elements.namedItem(wrong)?.focus?.();
  };

  const postOverHttp = async () => {
    if (sentOverHttp) return;
    sentOverHttp = true;
    clearTimeout(watchTimer);
    form.setAttribute("data-http-sending", "true");
    let answer = { result: "store_failed" };
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body: new URLSearchParams(new FormData(form)),
        headers: { Accept: "application/json" },
        credentials: "omit",
      });
      answer = await response.json();
    } catch {
      // Neither path reaches the backend: the visitor is told to write to us.
    }
    form.removeAttribute("data-http-sending");
    show(answer);
  };

  // After a submit over the websocket, until its answer shows (the form was busy, then is
  // not): over HTTP as soon as the socket is down after having carried it, or if it has
  // not connected $CONNECT_MS ms after the submit.
  const watch = (submitted, sawBusy) => {
    watchTimer = setTimeout(() => {
      const nowBusy = busy();
      if (sawBusy && !nowBusy) return;
      const waited = Date.now() - submitted;
      const down = !socketConnected() && (sawBusy || nowBusy || waited > $CONNECT_MS);
      if (down || offline()) {
        postOverHttp();
      } else if (waited < $WATCH_MS) {
        watch(submitted, sawBusy || nowBusy);
      }
    }, 250);
  };

  const onSubmit = (event) => {
    if (form.hasAttribute("data-http-sending")) {
      event.preventDefault();
      event.stopPropagation();
      return;
    }
    const now = content();
    if (now !== lastContent || !keyInput.value) {
      keyInput.value = newKey();
      lastContent = now;
    }
    clearTimeout(watchTimer);
    clearTimeout(hideTimer);
    sentOverHttp = false;
    setResult("");
    setErrors({});
    if (offline()) {
      event.preventDefault();
      event.stopPropagation();
      postOverHttp();
      return;
    }
    watch(Date.now(), false);
  };
  form.addEventListener("submit", onSubmit, true);
  return () => {
    form.removeEventListener("submit", onSubmit, true);
    clearTimeout(watchTimer);
    clearTimeout(hideTimer);
  };
}, []);
