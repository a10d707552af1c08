"""kvaddr.check(..., shard=(i, n)): the case indices k with k % n == i; the shards together are the campaign."""
import numpy as np
import pytest

import kvaddr
import np_kernels as K


def test_shards_partition_the_campaign():
    whole = kvaddr.check("read_table", K.read_table, cases=30, seed=3, lanes=1024)
    assert whole.ok and whole.shard == (0, 1)
    parts = [kvaddr.check("read_table", K.read_table, cases=30, seed=3, lanes=1024, shard=(i, 4)) for i in range(4)]
    assert all(p.ok for p in parts)
    # 30 indices over 4 shards: 8, 8, 7, 7 (drawn cases, run or rejected by the contract)
    assert [p.cases + p.rejected for p in parts] == [8, 8, 7, 7]
    assert sum(p.cases for p in parts) == whole.cases
    assert sum(p.rejected for p in parts) == whole.rejected
    assert sum(p.lanes for p in parts) == whole.lanes
    assert parts[2].to_dict()["shard"] == (2, 4)


def test_a_failure_is_found_by_the_shard_that_owns_its_case_and_keeps_its_index():
    whole = kvaddr.check("token_translate", K.translate_v2p_doc_formula, cases=50, seed=1, shrink=False)
    k = whole.failure.case_index
    owner = kvaddr.check("token_translate", K.translate_v2p_doc_formula, cases=50, seed=1, shrink=False,
                         shard=(k % 3, 3))
    assert owner.failure is not None and owner.failure.case_index == k
    assert owner.failure.kind == whole.failure.kind


@pytest.mark.parametrize("shard", [(1, 1), (-1, 2), (2, 2), (0, 0), (0, -1), (True, 2), (0.5, 2), (1,), "0/2", None])
def test_bad_shards_are_rejected(shard):
    with pytest.raises(ValueError, match="shard"):
        kvaddr.check("read_table", K.read_table, cases=2, seed=3, shard=shard)


@pytest.mark.parametrize("shard", [(0, 1), (1, 2), (np.int64(2), np.int64(3))])
def test_good_shards_are_accepted(shard):
    assert kvaddr.check("read_table", K.read_table, cases=4, seed=3, lanes=512, shard=shard).ok
