"""kvaddr.conventions.host_kernel: the host route as a kernel in the harness calling convention."""
import pytest

import kvaddr
from kvaddr.conventions import host_kernel


@pytest.mark.parametrize("route", kvaddr.HARNESS_ROUTES)
def test_host_route_passes_its_own_check(route):
    rep = kvaddr.check(route, host_kernel(route), cases=40, seed=3, lanes=512, shrink=False)
    assert rep.ok, str(rep)
    assert rep.cases - rep.rejected > 0


def test_a_variant_is_caught_and_named():
    rep = kvaddr.check("read_table", host_kernel("read_table", "b10_no_max_pages_bound"), cases=200, seed=2,
                       lanes=512)
    assert not rep.ok
    assert "b10_no_max_pages_bound" in rep.failure.behaves_like, str(rep)


def test_writes_through_a_padded_view():
    import numpy as np
    k = host_kernel("token_translate")
    out = np.full(8, 7, np.int64)
    k(virt=np.array([0, 5, -1], np.int64), v2p=np.array([3, 4, -1], np.int64), page_size=4, page_stride=8,
      out=out[::2][:3])
    # dense(t) = max(v2p[t // 4] * 8 + t % 4, 0); a padding id -1 lands on 0
    assert out.tolist() == [24, 7, 33, 7, 0, 7, 7, 7]
