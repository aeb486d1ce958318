"""softfloat.simulate_ring_all_reduce: the cost model's ring, as the distributed tests
count against it; values worked out by hand from softfloat/cost/all_reduce.hpp."""
import pytest

import softfloat


def test_four_devices_of_eight_numbers_send_twelve_each():
    inputs = [[10 * d + j for j in range(8)] for d in range(4)]
    ring = softfloat.simulate_ring_all_reduce(inputs)
    sums = [sum(10 * d + j for d in range(4)) for j in range(8)]  # 60 + 4 j
    assert ring["devices"] == [sums] * 4
    assert ring["numbers_sent"] == [12] * 4 and ring["numbers_received"] == [12] * 4  # 2 * 3 chunks of 2
    assert ring["steps"] == 6
    assert ring["every_device_has_exact_sum"]


def test_uneven_chunks_follow_the_chunk_rule():
    # 7 numbers over 3 devices: chunks [0, 2), [2, 4), [4, 7) (c * 7 // 3); device i sends
    # every chunk but (i + 1) in the reduce-scatter and every chunk but (i + 2) after.
    ring = softfloat.simulate_ring_all_reduce([[1] * 7] * 3)
    assert ring["numbers_sent"] == [(7 - 2) + (7 - 3), (7 - 3) + (7 - 2), (7 - 2) + (7 - 2)]
    assert ring["devices"] == [[3] * 7] * 3


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="device 1 holds 2 numbers"):
        softfloat.simulate_ring_all_reduce([[1, 2, 3], [1, 2]])
    with pytest.raises(ValueError):
        softfloat.simulate_ring_all_reduce([])
