"""Seeds of stochastic rounding on the wire: one per (seed, step, bucket, rank, phase,
hop), so that a run is reproducible and every message draws its own noise.

The six numbers are mixed by SplitMix64's finaliser (Steele, Lea and Flood, "Fast
splittable pseudorandom number generators", OOPSLA 2014) applied to each in turn; the
library's counter-based random_bits(seed, i) then gives value i of the message its bits.
"""
__all__ = ["bucket_seeds", "message_seed", "MASK"]

MASK = (1 << 64) - 1


def _mix(z):
    z = (z + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def bucket_seeds(seed, step, bucket):
    """The part of a message's seed that every rank shares in one bucket of one step."""
    return _mix(_mix(_mix(seed & MASK) ^ (step & MASK)) ^ (bucket & MASK))


def message_seed(seeds, rank, phase, hop):
    """The seed of the message `rank` encodes at (phase, hop), below 2^62 (the library's
    seeds are non-negative 64-bit integers; Python ints of 62 bits pass everywhere)."""
    return _mix(_mix(_mix(seeds ^ (rank & MASK)) ^ phase) ^ hop) >> 2
