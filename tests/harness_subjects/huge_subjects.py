"""Planted int32-offset subjects for the huge cases of kvaddr.check (kvaddr.huge): a correct kernel (kvaddr's own
CUDA kernel by default) made to behave like a kernel whose element offsets stop at, or keep the low 31 bits of,
2^31. Written with torch tensor operations only (their CPU test runs them on a numpy stand-in of torch).

* reads_31_bits(route): the table routes. A load of req_to_token element e >= 2^31 reads element e - 2^31 (a
  31-bit offset; on a GPU such a load lands wherever the truncated pointer points, here inside the table).
  Emulated by copying, for the duration of the call, the first elements of req_to_token over its elements
  past 2^31 and restoring them afterwards: the kernel sees the table a truncating kernel reads, and the
  input is unchanged when the call returns.
* stops_at_2_31(route): the elementwise routes. An int32 launch grid without a grid-stride loop: the lanes
  from element 2^31 on are never processed (the first 2^31 lanes are right).
"""
from kvaddr import huge as H


def _base(route, kernel):
    if kernel is not None:
        return kernel
    import kvaddr.gpu as G

    return G.kernel(route)


def reads_31_bits(route, kernel=None):
    base = _base(route, kernel)

    def truncating(**kw):
        lim = H.LIMIT
        n = kw["req_to_token"].numel() - lim
        if n <= 0:  # nothing past 2^31 (an ordinary case, possibly strided)
            return base(**kw)
        flat = kw["req_to_token"].view(-1)  # the huge table is contiguous
        saved = flat[lim:].clone()
        flat[lim:] = flat[:n]
        try:
            return base(**kw)
        finally:
            flat[lim:] = saved

    truncating.__name__ = f"reads_31_bits_{route}"
    return truncating


def stops_at_2_31(route, kernel=None):
    base = _base(route, kernel)

    def stops(**kw):
        lim = H.LIMIT
        kw = dict(kw)
        if route == "eager_funnel":  # whole rows: the table is [rows, cols] with cols dividing 2^31
            rows = lim // kw["page_table"].shape[1]
            same = kw["page_table"] is kw["out"]
            kw["page_table"] = kw["page_table"][:rows]
            kw["out"] = kw["page_table"] if same else kw["out"][:rows]
        else:
            name = {"mamba_translate": "slots", "token_translate": "virt"}.get(route, "ids")
            kw[name] = kw[name][:lim]
            kw["out"] = kw["out"][:lim]
        return base(**kw)

    stops.__name__ = f"stops_at_2_31_{route}"
    return stops
