"""The app on a real uvicorn server in a background thread, on a free loopback port (tests, benchmark)."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager

__all__ = ["running"]


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
