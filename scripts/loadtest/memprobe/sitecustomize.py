"""Python's heap of each backend process, for ``python -m scripts.loadtest --tracemalloc`` (not the site's code).

``scripts/loadtest`` puts this folder on PYTHONPATH of the backend it starts, so every
Python process of it (the ``reflex`` CLI and granian's worker) imports it at
start-up (or inherit it through a fork). With ``LOADTEST_TRACEMALLOC_DIR`` set it starts ``tracemalloc`` and a
thread that, for every ``<name>.request`` file appearing in that folder, dumps a
snapshot to ``<name>-<pid>.snapshot`` (the load test asks for one before the
visitors arrive and one while they are all connected). Without the variable it
does nothing.
"""

import os

_FOLDER = os.environ.get("LOADTEST_TRACEMALLOC_DIR")

if _FOLDER:
    import pathlib
    import threading
    import time
    import tracemalloc

    tracemalloc.start(int(os.environ.get("LOADTEST_TRACEMALLOC_FRAMES", "10")))

    def _answer_requests(folder: pathlib.Path) -> None:
        answered: set[str] = set()
        while True:
            for request in sorted(folder.glob("*.request")):
                if request.stem not in answered:
                    answered.add(request.stem)
                    partial = folder / f"{request.stem}-{os.getpid()}.partial"
                    tracemalloc.take_snapshot().dump(str(partial))
                    partial.rename(partial.with_suffix(".snapshot"))
            time.sleep(0.5)

    def _start_watcher() -> None:
        threading.Thread(
            target=_answer_requests,
            args=(pathlib.Path(_FOLDER),),
            name="loadtest-tracemalloc",
            daemon=True,
        ).start()

    _start_watcher()
    # Granian's workers may be forked: a thread does not survive a fork, tracing does.
    os.register_at_fork(after_in_child=_start_watcher)
