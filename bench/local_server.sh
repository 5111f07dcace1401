# One rpsum-server on the shipped model for a bench shell script (bench/local_server.py's
# twin): `source bench/local_server.sh BUILD_DIR` from the repository root starts it on free
# ports, waits until it serves, and stops it (and removes $tmp) when the script exits. Sets
# $p1 (gRPC API), $p2 (health), $p3 (HTTP/JSON API), $server (its pid) and $tmp (a scratch
# folder).
source scripts/cpu-env
tmp=$(mktemp -d)
read -r p1 p2 p3 < <(/usr/bin/python3 tests/e2e/free_ports.py 3)
"$1/server/rpsum-server" --model_dir models/rpsum-ext --listen "127.0.0.1:$p1" \
  --health_listen "127.0.0.1:$p2" --metrics_listen "127.0.0.1:$p3" --threads 2 >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
"$1/client/rpsum" health --server "127.0.0.1:$p2" --wait 120 >/dev/null
