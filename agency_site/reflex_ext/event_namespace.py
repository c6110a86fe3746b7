"""A check in front of Reflex's websocket event handler, run before Reflex reads the event."""

from collections.abc import Callable
from typing import Any


def screen_events(
    app: Any, problem: Callable[[Any], str], refused: Callable[[str, str], None]
) -> None:
    """Drop every websocket event of ``app`` for which ``problem`` says why (told to ``refused``).

    ``refused`` gets the session id and the reason; the other events go on to Reflex.
    """
    namespace = app.event_namespace
    if namespace is None:
        msg = "The app has no websocket event namespace to guard (no state?)."
        raise RuntimeError(msg)
    handle: Callable = namespace.on_event

    async def on_event(sid: str, data: Any = None) -> None:
        if why := problem(data):
            refused(sid, why)
            return
        await handle(sid, data)

    # python-socketio looks handlers up by name on the namespace object (on_<event name>).
    namespace.on_event = on_event
