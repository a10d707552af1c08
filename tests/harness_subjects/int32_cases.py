"""The int32_lengths call of issue 33 as a kvaddr Case, and the checks a subject exhibiting it must meet: shared by
the GPU test of the Triton subject (test_int32_subjects.py) and the CPU test of the same flow with kvaddr's host
route under the variant standing in for the kernel (python/tests/test_int32_flow.py). numpy only."""
import numpy as np

import kvaddr

STALE = 999934797  # the page_table lane's value before the call (the example)


def int32_lengths_case():
    """decode_metadata at the int32 edge of the fa3 length arithmetic: seq_len 2^31 - 1 at ps 2, max_seq_pages 2.
    Production counts 2^30 pages, capped at 2 (entries v2p[0] = 5, v2p[1] = 6); in int32, 2^31 - 1 + (ps - 1)
    wraps to -2^31: a negative page count, no column written, the row keeps STALE. Small: only the capped live
    prefix of req_to_token is read."""
    scalars = {"max_seq_pages": 2, "page_size": 2, "seq_len_delta": 0, "multiplier": 1}
    inputs = {"seq_lens": np.array([2**31 - 1], np.int64), "req_to_token": np.arange(4, dtype=np.int32).reshape(1, 4),
              "req_pool_indices": np.array([0], np.int64), "v2p": np.array([5, 6, -1], np.int64)}
    outputs = {"cache_seqlens": np.full(1, 7, np.int32), "cu_seqlens_k": np.full(2, 7, np.int32),
               "page_table": np.full((1, 2), STALE, np.int32)}
    return kvaddr.cases.Case("decode_metadata", scalars, inputs, outputs)


def check_int32_lengths_subject(kernel, device, tmp_path):
    """The subject fails as production with the row left stale, passes claimed int32_lengths, is named
    int32_lengths by behaves-like, and its recording replays naming it."""
    case = int32_lengths_case()
    res = kvaddr.check_case(kernel, case, device=device)
    assert res.kind == "mismatch", res
    assert res.actual["page_table"].tolist() == [[STALE, STALE]], res.actual
    assert res.actual["cache_seqlens"].tolist() == [2**31 - 1] and res.actual["cu_seqlens_k"].tolist() == [0, 2**31 - 1]
    assert kvaddr.check_case(kernel, case, device=device, variant="int32_lengths").kind == "ok"
    assert kvaddr.behaves_like(case, res.actual, "production", res) == ["int32_lengths"]
    d = kvaddr.write_case(tmp_path, case, res, "production", 0, 0)
    rep = kvaddr.replay(str(d))
    call = rep["calls"][0]
    assert call["status"] == "differs" and call["matching_variants"] == ["int32_lengths"], rep
    return rep
