"""The app on a real uvicorn server: ``bellica serve`` in the foreground (:func:`serve`), or in a
background thread on a free loopback port (:func:`running`: tests, benchmark)."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path

__all__ = ["GRACE_S", "running", "serve"]

#: How long a stopping server waits for the requests under way (a step, a map) before it cancels them.
GRACE_S = 3.0


def serve(campaign: str | Path, *, host: str, port: int, secure_cookies: bool = False, behind_proxy: bool = False) -> None:
    """Serve ``campaign`` until SIGINT or SIGTERM; a console query running then is interrupted, so
    the server stops within :data:`GRACE_S` seconds and a moment for the file (not the query's 30 s)."""
    import uvicorn

    from bellica.app.server import create_app

    app = create_app(campaign, secure_cookies=secure_cookies, behind_proxy=behind_proxy)

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            app.state.access.stop()  # before the graceful shutdown starts to wait for the requests
            super().handle_exit(sig, frame)

    # proxy_headers off: the app alone decides whether X-Forwarded-* are believed (--behind-proxy).
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", proxy_headers=False,
                            timeout_graceful_shutdown=GRACE_S)
    Server(config).run()


@contextmanager
def running(app, *, host: str = "127.0.0.1"):
    """Serve ``app`` while the block runs; yields its base URL (``http://127.0.0.1:PORT``)."""
    import uvicorn

    with socket.socket() as s:
        s.bind((host, 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"uvicorn did not start on {host}:{port}")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
