// The owner's desk (agency_site/desk/): its passkey ceremonies with the browser's own
// WebAuthn JSON API (PublicKeyCredential.parse*OptionsFromJSON, credential.toJSON():
// Chromium 129+, Safari 18+, Firefox 119+). A form with data-ceremony="create" or "get"
// asks its data-options URL for options, runs the ceremony, sends the answer to its
// data-answer URL and goes where the server says. Its words are the page's
// ([data-message] elements, by the code the server answers): none are written here.
"use strict";

(() => {
  const supported = () =>
    typeof window.PublicKeyCredential !== "undefined" &&
    typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function" &&
    typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function";

  const failure = (code) => Object.assign(new Error(code), { code });

  const say = (form, code) => {
    const root = form.closest("section, main") || document;
    const output = root.querySelector("[data-output]");
    if (!output) return;
    if (!code) {
      output.textContent = "";
      return;
    }
    const message =
      root.querySelector(`[data-message="${code}"]`) ||
      root.querySelector('[data-message="passkey"]');
    output.textContent = message ? message.textContent : "";
  };

  const post = async (url, body) => {
    let response;
    try {
      response = await fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(body),
      });
    } catch {
      throw failure("network");
    }
    let data = {};
    try {
      data = await response.json();
    } catch {
      data = {};
    }
    if (!response.ok) throw failure(data.error || "passkey");
    return data;
  };

  const ceremony = async (form) => {
    const token = form.dataset.token;
    const options = await post(form.dataset.options, token === undefined ? {} : { token });
    let credential;
    try {
      credential =
        form.dataset.ceremony === "create"
          ? await navigator.credentials.create({
              publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options),
            })
          : await navigator.credentials.get({
              publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options),
            });
    } catch (error) {
      throw failure(error && error.name === "NotAllowedError" ? "cancelled" : "passkey");
    }
    const label = form.querySelector("[name=label]");
    const answer = await post(form.dataset.answer, {
      credential: credential.toJSON(),
      token,
      next: form.dataset.next,
      label: label ? label.value : undefined,
    });
    window.location.assign(answer.next);
  };

  for (const form of document.querySelectorAll("form[data-ceremony]")) {
    if (form.hasAttribute("data-token-from-hash")) {
      // The invite's token is in the link's fragment (never sent to a server, nor logged):
      // kept here for the ceremony, and out of the address bar and the history.
      form.dataset.token = window.location.hash.slice(1);
      history.replaceState(null, "", window.location.pathname + window.location.search);
    }
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (!supported()) {
        say(form, "unsupported");
        return;
      }
      const button = form.querySelector("button[type=submit]");
      if (button) button.disabled = true;
      say(form, "");
      try {
        await ceremony(form);
      } catch (error) {
        say(form, (error && error.code) || "passkey");
      } finally {
        if (button) button.disabled = false;
      }
    });
  }

  // A passkey works at the desk's own address only: say so when opened at another one.
  const note = document.querySelector("[data-origin-note]");
  if (note && note.dataset.originNote !== window.location.origin) note.hidden = false;
})();
