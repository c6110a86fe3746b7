// A lead form's way round a websocket that is down (agency_site/components/form_hooks.py): the
// same submission goes to the form's own HTTP endpoint (its `action`, the path the form
// uses without JavaScript) with `fetch`, and the answer is shown in place through two
// ClientStateVars (result, field errors). Runs in the capture phase on the form, before
// React's onSubmit: while the form is offline (its data-offline, from Reflex's connection
// errors, which come late) the submit never reaches the websocket; otherwise it goes over
// the websocket and is watched: sent over HTTP too when the socket is still not connected
// $CONNECT_MS ms after the submit (blocked or refused), or drops before the answer. The
// hidden `$KEY_FIELD` carries one key per submission (a new one when the content
// changes), so a submission tried over both paths is stored and sent once.
// The time trap (agency_site/leads/spam/form_token.py): at the first focus in the form a fresh
// signed token is fetched from $TOKEN_URL into the hidden `$TOKEN_FIELD` (a prerendered
// page cannot hold one), so both paths carry it (at once when the visitor was already in
// the form before the page hydrated); a failed fetch is tried again at the next focus or
// keystroke, and a submit while the fetch is under way waits for it (at most
// $TOKEN_WAIT_MS ms), then goes on with or without a token: the server never refuses for it.
// An answer "challenge" (a suspect submission: agency_site/leads/spam/challenge.py) shows the
// ALTCHA widget through a third ClientStateVar; its payload ($CHALLENGE_FIELD, and the
// widget's own copy $WIDGET_NAME) is no content either: the submission sent again with it
// keeps its key.
useEffect(() => {
  const form = document.getElementById($FORM_ID);
  if (!form) return undefined;
  const keyInput = form.elements.namedItem($KEY_FIELD);
  const tokenInput = form.elements.namedItem($TOKEN_FIELD);
  const setResult = (value) => refs[$SET_RESULT]?.(value);
  const setErrors = (value) => refs[$SET_ERRORS]?.(value);
  const setChallenge = (value) => refs[$SET_CHALLENGE]?.(value);
  let lastContent = null;
  let hideTimer = null;
  let watchTimer = null;
  let sentOverHttp = false;

  const content = () => {
    const data = new URLSearchParams(new FormData(form));
    data.delete($KEY_FIELD);
    data.delete($TOKEN_FIELD); // Not content: its arrival makes no new submission.
    data.delete($CHALLENGE_FIELD);
    data.delete($WIDGET_NAME);
    return data.toString();
  };
  const newKey = () =>
    globalThis.crypto?.randomUUID?.().replaceAll("-", "") ??
    Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join("");
  const offline = () => form.dataset.offline === "true";

  let tokenFetch = null;
  const fetchToken = () => {
    if (!tokenInput || tokenInput.value || tokenFetch) return;
    tokenFetch = fetch($TOKEN_URL, { headers: { Accept: "application/json" }, credentials: "omit" })
      .then((response) => response.json())
      .then((answer) => {
        if (typeof answer?.token === "string") tokenInput.value = answer.token;
      })
      .catch(() => {})
      .finally(() => {
        tokenFetch = null;
      });
  };
  const waitForToken = (event) => {
    if (!tokenFetch) return false;
    event.preventDefault();
    event.stopPropagation();
    const waited = new Promise((resolve) => setTimeout(resolve, $TOKEN_WAIT_MS));
    Promise.race([tokenFetch, waited]).then(() => {
      tokenFetch = null;
      form.requestSubmit();
    });
    return true;
  };
  const busy = () => form.getAttribute("aria-busy") === "true";

  const show = (answer) => {
    clearTimeout(hideTimer);
    const result = answer.result === "refused" ? "store_failed" : answer.result;
    setErrors(answer.errors ?? {});
    setResult(result === "invalid" ? "" : result);
    setChallenge(result === "challenge" ? JSON.stringify(answer.challenge ?? "") : "");
    if (result === "sent" || result === "queued") {
      form.reset();
      keyInput.value = "";
      const proof = form.elements.namedItem($CHALLENGE_FIELD);
      if (proof) proof.value = "";
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
    // No answer from the site (the backend lost mid-request, the proxy's 502 page) is
    // tried again: the same key, so the submission is stored and sent once. After the
    // last try the visitor is told to write to us.
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      try {
        const response = await fetch(form.action, {
          method: "POST",
          body: new URLSearchParams(new FormData(form)),
          headers: { Accept: "application/json" },
          credentials: "omit",
        });
        answer = await response.json();
        break;
      } catch {
        if (attempt < 3) await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
      }
    }
    form.removeAttribute("data-http-sending");
    show(answer);
  };

  // After a submit over the websocket, until its answer shows (the form was busy, then is
  // not), it goes over HTTP too: as soon as the socket is down after having carried it; if
  // the socket has not connected $CONNECT_MS ms after the submit; if the backend has not
  // started it (the form never busy) twice that long after, e.g. its state store (Redis)
  // is down; and if no answer has come after $WATCH_MS ms.
  // The form's aria-busy follows the backend's `busy`: seen true, then false, is the
  // answer. Observed, not polled, so a quick answer is never taken for a stall.
  let started = false;
  let answered = false;
  const progress = new MutationObserver(() => {
    if (busy()) {
      started = true;
    } else if (started) {
      answered = true;
    }
  });
  progress.observe(form, { attributes: true, attributeFilter: ["aria-busy"] });
  const watch = (submitted) => {
    watchTimer = setTimeout(() => {
      if (answered) return;
      const waited = Date.now() - submitted;
      const down = !socketConnected() && (started || waited > $CONNECT_MS);
      const stalled = !started && waited > 2 * $CONNECT_MS;
      if (down || stalled || offline() || waited >= $WATCH_MS) {
        postOverHttp();
      } else {
        watch(submitted);
      }
    }, 250);
  };

  const onSubmit = (event) => {
    if (form.hasAttribute("data-http-sending")) {
      event.preventDefault();
      event.stopPropagation();
      return;
    }
    if (waitForToken(event)) return;
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
    started = busy();
    answered = false;
    watch(Date.now());
  };
  // Focused or typed in before the page hydrated (no focusin comes again): fetched now.
  if (form.contains(document.activeElement)) fetchToken();
  form.addEventListener("focusin", fetchToken);
  form.addEventListener("input", fetchToken);
  form.addEventListener("submit", onSubmit, true);
  return () => {
    progress.disconnect();
    form.removeEventListener("focusin", fetchToken);
    form.removeEventListener("input", fetchToken);
    form.removeEventListener("submit", onSubmit, true);
    clearTimeout(watchTimer);
    clearTimeout(hideTimer);
  };
}, []);
