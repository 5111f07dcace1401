"""One rpsum-server on the shipped model for a bench script: free ports, started, waited for
(its health port SERVING), stopped when the block ends.

    with local_server.served(BUILD_DIR) as http:   # "127.0.0.1:PORT", the HTTP/JSON API
        ...
"""
import contextlib
import pathlib
import socket
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


@contextlib.contextmanager
def served(build, threads=2, flags=(), started=None):
    """`flags`: more server flags. `started(pid)`, if given, is called once the server is up."""
    build = pathlib.Path(build)
    api, health, http = (f"127.0.0.1:{p}" for p in _free_ports(3))
    server = subprocess.Popen(
        [str(build / "server/rpsum-server"), "--model_dir", str(ROOT / "models/rpsum-ext"),
         "--listen", api, "--health_listen", health, "--metrics_listen", http,
         "--threads", str(threads), *flags],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        subprocess.run([str(build / "client/rpsum"), "health", "--server", health, "--wait", "120"],
                       check=True, stdout=subprocess.DEVNULL)
        if started is not None:
            started(server.pid)
        yield http
    finally:
        server.terminate()
        server.wait(timeout=60)
