"""podman as the tests run it: tests/python/test_image.py and balancer.py's ContainerReplica."""

from __future__ import annotations

import subprocess

PODMAN = ["podman", "--runtime", "runc"]  # crun fails on these machines' cgroups
# podman raises a container's open-file and process limits to 1M and 4M by default, which needs CAP_SYS_RESOURCE;
# root on these machines lacks it ("error setting rlimit type 7: operation not permitted"), so every container
# here asks for 16384 of each (a server holds far fewer). Kubernetes and a machine with the capability need none.
LIMITS = ["--ulimit", "nofile=16384:16384", "--ulimit", "nproc=16384:16384"]


def podman(*args, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run([*PODMAN, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    if check and r.returncode != 0:
        raise AssertionError(f"podman {' '.join(map(str, args))}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r
