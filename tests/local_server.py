"""The other side of a request biji makes (a WebSub hub, a fediverse inbox, a remote actor), as
an HTTP server on a free port of 127.0.0.1 in a thread of the test process: started when made,
stopped when its ``with`` block ends. A subclass gives the request handler (``_handler``)."""

import threading
from http.server import ThreadingHTTPServer


class LocalServer:
    def __init__(self):
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        # Stopping waits for the loop's next poll: a twentieth of a second, not the default half.
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def host(self):
        """``127.0.0.1:port``."""
        return f"127.0.0.1:{self.server.server_port}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def _handler(self):
        raise NotImplementedError
