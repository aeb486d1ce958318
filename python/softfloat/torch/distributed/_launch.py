"""Running a function on N local processes of one gloo group, bounded in time.

launch(N, function, *args) starts N processes (torch.multiprocessing), each
joining one process group over gloo on the loopback (GLOO_SOCKET_IFNAME=lo, so gloo does
not bind the host's address), and returns [function(rank, N, *args) for each rank].
The group meets through a FileStore in a fresh temporary directory, not a TCP port: runs
side by side cannot collide, and gloo's own connections take ports the kernel picks.
If a rank raises, RuntimeError shows its traceback (and those of any rank that fails
within two seconds after it, often in consequence) and the others are ended; if
the run passes `timeout` seconds, every process is ended and TimeoutError names the
ranks that had not finished. The group's own timeout is shorter, so a rank waiting on a
collective that another rank never joins fails with gloo's error rather than hanging.

The processes are forked from one server process that imported torch and softfloat once
("forkserver" with those modules preloaded, where the platform has it; "spawn" elsewhere):
a spawned process spends seconds importing torch before it does anything, which made
every launch cost seconds per rank (test_torch_distributed_all_reduce.py, 16 tests of
sixteen launches: 285 s with spawn, 20 s with the server, on one busy 2-core machine).
The server forks before any torch operation has started a thread pool, and the children
start as clean as spawned ones would: the function and its arguments are pickled and
sent, so the same rules hold (the function importable by name, as for spawn).
"""
import datetime
import os
import queue
import shutil
import tempfile
import time
import traceback

import torch.distributed as dist
import torch.multiprocessing as mp

__all__ = ["launch", "GRACE_SECONDS"]

# After a rank fails, how long the others have to report (a failure often makes its peers
# fail too, with "connection closed"; every report is shown, the first cause among them).
GRACE_SECONDS = 2.0


def _child(rank, size, store_path, group_timeout, function, args, results):
    try:
        os.environ["GLOO_SOCKET_IFNAME"] = "lo"
        dist.init_process_group("gloo", init_method=f"file://{store_path}", rank=rank, world_size=size,
                                timeout=datetime.timedelta(seconds=group_timeout))
        try:
            value = function(rank, size, *args)
        finally:
            dist.destroy_process_group()
        results.put((rank, True, value))
    except BaseException:  # noqa: B902 (every failure goes back to the parent)
        results.put((rank, False, traceback.format_exc()))


_PRELOADED = ["torch", "torch.distributed", "softfloat", "softfloat.torch.distributed"]
_context = None


def _process_context():
    """The forkserver context with torch and softfloat preloaded, created once."""
    global _context
    if _context is None:
        if "forkserver" in mp.get_all_start_methods():
            _context = mp.get_context("forkserver")
            _context.set_forkserver_preload(_PRELOADED)
        else:
            _context = mp.get_context("spawn")
    return _context


def launch(world_size, function, *args, timeout=60.0):
    """[function(rank, world_size, *args) for each rank], run in world_size processes."""
    if not isinstance(world_size, int) or world_size < 1:
        raise ValueError(f"softfloat.torch.distributed.launch: world_size must be a positive int, not {world_size!r}")
    context = _process_context()
    results = context.Queue()
    directory = tempfile.mkdtemp(prefix="softfloat-dist-")
    group_timeout = max(5.0, 0.6 * timeout)
    processes = [context.Process(target=_child, args=(rank, world_size, os.path.join(directory, "store"),
                                                      group_timeout, function, args, results), daemon=True)
                 for rank in range(world_size)]
    values, failures, deadline = {}, {}, time.monotonic() + timeout
    try:
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
        for process in processes:
            process.start()
        while len(values) + len(failures) < world_size:
            left = deadline - time.monotonic()
            if left <= 0:
                if failures:
                    break
                waiting = sorted(set(range(world_size)) - set(values))
                raise TimeoutError(f"softfloat.torch.distributed.launch: after {timeout:g} s rank(s) "
                                   f"{', '.join(map(str, waiting))} of {world_size} had not finished (ended)")
            try:
                rank, ok, value = results.get(timeout=min(left, 0.5))
            except queue.Empty:
                for r, process in enumerate(processes):
                    if r not in values and r not in failures and process.exitcode not in (None, 0):
                        failures[r] = f"exited with code {process.exitcode}\n"
                        deadline = min(deadline, time.monotonic() + GRACE_SECONDS)
                continue
            (values if ok else failures)[rank] = value
            if failures:  # the others may fail in turn (a peer gone): a moment to hear them
                deadline = min(deadline, time.monotonic() + GRACE_SECONDS)
        if failures:
            ranks = ", ".join(map(str, sorted(failures)))
            reports = "".join(f"--- rank {r} ---\n{failures[r]}" for r in sorted(failures))
            raise RuntimeError(f"softfloat.torch.distributed.launch: rank(s) {ranks} of {world_size} failed:\n"
                               f"{reports}")
        return [values[rank] for rank in range(world_size)]
    finally:
        for process in processes:
            if process.is_alive():
                process.join(timeout=5 if len(values) == world_size else 0)
            if process.is_alive():
                process.kill()
                process.join()
        shutil.rmtree(directory, ignore_errors=True)
