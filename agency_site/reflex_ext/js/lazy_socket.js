// The lazy websocket, pasted by agency_site/reflex_ext/lazy_socket.py into Reflex's
// utils/state.js right after its imports (it uses that module's `app`, `env` and
// `getBackendURL`). Only the forms need the backend, so the websocket, socket.io-client,
// the session token and the backend's state for the tab all wait until the visitor uses a
// form (a focus inside a <form>) or a backend event is queued without one (a submit by
// Enter after autofill, a click in a browser that does not focus buttons). Until then a
// client-side navigation's on_load events are dropped (no page has an on_load: a test
// checks) and a JavaScript error goes to the backend log in a small beacon. Once wanted,
// the socket is stock Reflex: reconnects, visibility, state_mismatch reload.
let socketWanted = false;
let io = null;
// The event loop's socket ref, once it has mounted.
let eventSocket = null;

/** Whether the websocket is connected now (the forms' HTTP fallback asks). */
export const socketConnected = () => eventSocket?.current?.connected === true;

/** Load socket.io-client, once, when the first socket is created. */
const loadSocketIo = async () => {
  io ??= (await import("socket.io-client")).default;
};

/** True for a node inside one of the page's forms. */
const isInsideForm = (node) =>
  typeof Element !== "undefined" &&
  node instanceof Element &&
  node.closest("form") !== null;

/** Send a JavaScript error to the backend's log without opening the socket. */
const reportClientError = (event) => {
  try {
    const url = getBackendURL(env.PING);
    url.pathname = url.pathname.replace(/\/ping\/?$/, "") + $CLIENT_ERROR_PATH;
    url.search = "";
    const report = JSON.stringify({
      info: String(event.payload?.info ?? "").slice(0, $MAX_REPORT_CHARS),
      page: window.location.pathname.slice(0, 200),
    });
    navigator.sendBeacon?.(url.href, new Blob([report], { type: "text/plain" }));
  } catch {
    // A report that cannot be sent must not raise another error.
  }
};

/**
 * The events a component queues, as they may go while the socket is not wanted yet:
 * navigation's on_load events dropped, error reports sent as a beacon, and any other
 * backend event makes the socket wanted (it is then sent once the socket connects).
 */
const lazyEvents = (events, socket) => {
  if (socketWanted || socket.current) {
    return events;
  }
  const onLoad = new Set(app.onLoadInternalEvent().map((event) => event.name));
  const errorReport = `${app.exception_state_name}.handle_frontend_exception`;
  return events.filter((event) => {
    if (onLoad.has(event?.name)) {
      return false;
    }
    if (event?.name === errorReport) {
      reportClientError(event);
      return false;
    }
    if (typeof event?.name === "string" && event.name.startsWith("reflex___state")) {
      socketWanted = true;
    }
    return true;
  });
};

/**
 * Connect (with `connectNow`) as soon as the visitor focuses a form field, or at once if
 * the focus is already in a form (a field focused before hydration); `socket` is the event
 * loop's socket ref, for `socketConnected`. Returns the cleanup.
 */
const watchFormFocus = (connectNow, socket) => {
  eventSocket = socket;
  const start = () => {
    socketWanted = true;
    connectNow();
  };
  if (socketWanted || isInsideForm(document.activeElement)) {
    start();
    return () => {};
  }
  const onFocus = (event) => {
    if (isInsideForm(event.target)) {
      document.removeEventListener("focusin", onFocus, true);
      start();
    }
  };
  document.addEventListener("focusin", onFocus, true);
  return () => document.removeEventListener("focusin", onFocus, true);
};
