"""The timing loop the Python benchmarks share: the median of repeated calls."""
import statistics
import time


def median_ms(function, runs, warm_up=True):
    """The median wall time of `runs` calls of function(), in milliseconds; one call
    first when warm_up is set (allocations, page faults, caches)."""
    if warm_up:
        function()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)
