"""Issue 33 in the Python harness: claims with parameters and the inferred behaviours are claimable, and a
claimed variant that reads before v2p is compared on the guard pages the kernel read, not rejected."""
import numpy as np
import pytest

import kvaddr
import np_kernels as K
from kvaddr import _core


def test_require_variant_spells_and_rejects_claims():
    assert _core.require_variant("read_table", "grid_spill@2") == "grid_spill@2"
    assert _core.require_variant("decode_metadata", "era_d_read_table@4+int32_lengths") == \
        "int32_lengths+era_d_read_table@4"
    assert _core.require_variant("decode_metadata", "b09_no_padding_guard+era_b_unclamped+int32_wrap") == \
        "pr33046_as_written"
    with pytest.raises(kvaddr.InvalidArgument, match="era_d_read_table@0"):
        _core.require_variant("decode_metadata", "era_d_read_table@0")
    assert _core.require_variant("decode_metadata", "era_d_read_table@1") == "era_d_read_table@1"
    with pytest.raises(kvaddr.InvalidArgument, match="int32_lengths is not a variant of route read_table"):
        _core.require_variant("read_table", "int32_lengths")


def test_inferred_behaviours_are_listed():
    names = kvaddr.variants("decode_metadata")
    for v in ("int32_lengths", "full_width_page_table", "swa_no_padding_guard", "era_d_read_table"):
        assert v in names
    assert "int32_lengths" not in kvaddr.variants("read_table")


def test_check_accepts_parametrised_claims_and_names_bad_ones():
    with pytest.raises(ValueError, match="variant = 'grid_spill@0'"):
        kvaddr.check("read_table", K.canonical_no_guard, variant="grid_spill@0", cases=1)
    with pytest.raises(ValueError, match="variant = 'int32_lengths'"):
        kvaddr.check("read_table", K.canonical_no_guard, variant="int32_lengths", cases=1)


def test_claimed_unguarded_decode_is_compared_on_the_guard_pages():
    # The kernel as PR #33046 wrote it, claimed as such: its padding tokens read v2p[-1] (a guard page), and
    # the claimed reference reads the same page, so those cases are compared and pass, none rejected.
    rep = kvaddr.check("decode_metadata", K.decode_metadata_as_written, variant="pr33046_as_written", cases=300,
                       seed=1, lanes=4096)
    assert rep.ok, str(rep)
    assert "OutOfRange(v2p)" not in rep.rejections, rep.rejections
    assert rep.cases + rep.rejected == 300 and rep.cases >= 270, str(rep)
