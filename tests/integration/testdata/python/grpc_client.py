# Calls the standard gRPC health service on each HOST:PORT argument with Debian's
# python3-grpcio (gRPC C-core), the proxy read from the environment as C-core
# reads it, and prints "proxy" when the proxy's log (the first argument) grew,
# "direct" when it did not, or "error". No generated code: the request and the
# answer are the empty message's bytes.
import sys

import grpc


def requests(log):
    with open(log, errors="replace") as f:
        return f.read().count("Request (file descriptor")


log = sys.argv[1]
for target in sys.argv[2:]:
    before = requests(log)
    try:
        with grpc.insecure_channel(target) as channel:
            channel.unary_unary("/grpc.health.v1.Health/Check")(b"", timeout=5)
        print("proxy" if requests(log) > before else "direct")
    except Exception as err:
        print("error")
        print(target, err, file=sys.stderr)
