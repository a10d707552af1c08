// Differential check, token-granular cases: token_translate / swa_translate (int64 and int32
// outputs), the per-id routes of the list (mamba_translate, dcp_read_translate, transfer_ids: from
// their specs), write_loc, kv_indices_inplace and envelope_moves. Each case draws its inputs from the case stream (diff_case.hpp), runs the host
// route, the GPU kernel (unless host-only) and compares every output element, then the model.
#include <limits>
#include <span>

#include "diff_case.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr::gpu::diffcase {

// An aliasing shape (gen::AliasCase) of a 1-D route: one allocation holds the input ids and the
// output at the shape's placement. A shape the contract rejects must raise InvalidArgument on the
// host (writing nothing) and at the launcher; an admitted one runs like any case, with the whole
// allocation compared and checked: out lane i < written(out_size) is want(i, out_size), every
// other element keeps its contents. host / device(ids view, out view) run the route.
template <class Host, class Device, class Want, class Written>
void alias_case(Ctx& c, gen::AliasRule rule, const std::vector<i64>& ids, i64 out_min, Host&& host, Device&& device,
                Want&& want, Written&& written) {
  const gen::AliasCase a = gen::alias_case(c.edge, rule, ssz(ids.size()), out_min);
  c.mark(a.admitted ? "alias_admitted" : "alias_rejected");
  c.geo.kv("alias_shape", static_cast<int>(a.shape)).kv("in_off", a.in_off).kv("out_off", a.out_off)
      .kv("out_size", a.out_size).kv("admitted", a.admitted);
  std::vector<i64> parent = gen::stale<i64>(c.edge, a.parent);
  std::copy(ids.begin(), ids.end(), parent.begin() + a.in_off);
  const std::vector<i64> initial = parent;
  const auto in_view = [&](i64* base) { return Vec<const i64>{base + a.in_off, a.in_size}; };
  const auto out_view = [&](i64* base) { return Vec<i64>{base + a.out_off, a.out_size}; };
  if (!a.admitted) {
    const auto rejects = [&](auto&& call, const char* who) {
      ++c.res.model_compared;
      try {
        call();
      } catch (const InvalidArgument&) {
        return;
      }
      c.fail("model", {}, 1, std::string(who) + " accepted an aliasing shape that the contract rejects");
    };
    rejects([&] { host(in_view(parent.data()), out_view(parent.data())); }, "the host route");
    if (parent != initial) c.fail("model", {}, 1, "the host route wrote before rejecting an aliasing shape");
    if (!c.host_only) {
      i64* d = c.dev.up(initial);
      rejects([&] { device(in_view(d), out_view(d)); }, "the launcher");
    }
    return;
  }
  host(in_view(parent.data()), out_view(parent.data()));
  if (!c.host_only) {
    i64* d = c.dev.up(initial);
    device(in_view(d), out_view(d));
    cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    c.compare("out", parent, d);
  }
  const i64 w = written(a.out_size);
  c.res.lanes += w;
  for (i64 i = 0; i < ssz(parent.size()) && !c.res.mismatch; ++i) {
    const i64 lane = i - a.out_off;
    if (lane >= 0 && lane < w) c.model_lane("out", i, parent[sz(i)], [&] { return want(lane, a.out_size); });
    else c.model_lane("out", i, parent[sz(i)], [&] { return initial[sz(i)]; });
  }
}

template <class Out>
void case_token(Ctx& c, bool swa) {
  const bool i32out = std::is_same_v<Out, i32>;
  c.variant = swa ? c.choose_variant({Variant::b11_swa_no_clamp}) : c.choose_variant({Variant::b17_doc_formula, Variant::e03_int32_offset});
  // int32 outputs of translate_v2p: ids whose P * ps * M + o passes 2^31 (int32_wrap or Overflow).
  const Wide wide = i32out && !swa ? draw_wide(c) : Wide{};
  const i64 ps = pick_ps(c, false);
  mark_ps(c, ps);
  const i64 M = pick_m(c);
  const i64 n = lanes_for(c);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, std::max<i64>(2, c.scale / ps + 2)), i32out, !i32out);
  if (wide.on) gen::widen_entries(c.edge, p, ps * M);
  const double pad = c.rng.pick<double>({0.0, 0.01, 0.2});
  std::vector<i64> ids(sz(n));
  for (auto& t : ids) t = token(c, p, pad);
  // b17 ignores v2p, so its ids must keep the result in range of the output type.
  if (c.variant == Variant::b17_doc_formula && i32out)
    for (auto& t : ids) t = std::min<i64>(t, ((i64(1) << 31) - 1) / M - ps);
  const std::span<const i64> v2p(p.v2p);
  const auto model_id = [&](i64 t) {
    return swa ? model::swa_id(v2p, ps, M, model::VirtualToken(t)).value : model::kernel_id(v2p, ps, M, model::VirtualToken(t)).value;
  };
  if constexpr (std::is_same_v<Out, i64>) {
    if (c.edge_on(0.3)) {  // an aliasing shape of out against ids
      return alias_case(
          c, gen::AliasRule::exact, ids, n,
          [&](Vec<const i64> in, Vec<i64> out) {
            if (swa) translate::swa_translate(SwaTranslateArgs<i64>{in, cvec(p.v2p), ps, M, out, c.variant});
            else translate::token_translate(TokenTranslateArgs<i64>{in, cvec(p.v2p), ps, M, out, c.variant});
          },
          [&](Vec<const i64> in, Vec<i64> out) {
            const Vec<const i64> dv{c.dev.up_v2p(p.v2p), ssz(p.v2p.size())};
            if (swa) launch_swa_translate(SwaTranslateArgs<i64>{in, dv, ps, M, out, c.variant}, nullptr);
            else launch_token_translate(TokenTranslateArgs<i64>{in, dv, ps, M, out, c.variant}, nullptr);
          },
          [&](i64 i, i64) { return model_id(ids[sz(i)]); }, [&](i64) { return n; });
    }
  }
  if (wide.expect_overflow) {  // Overflow exactly when a lane's id does not fit int32, nothing written
    bool want = false;
    for (i64 t : ids) want = want || model_id(t) > std::numeric_limits<i32>::max();
    std::vector<i32> out = stale<i32>(c, n);
    const std::vector<i32> before = out;
    bool threw = false;
    try {
      translate::token_translate(TokenTranslateArgs<i32>{cvec(ids), cvec(p.v2p), ps, M, mvec(out), c.variant});
    } catch (const Overflow&) {
      threw = true;
    }
    ++c.res.model_compared;
    if (threw != want) c.fail("model", {}, 1, want ? "an id >= 2^31 did not raise Overflow" : "Overflow raised with every id < 2^31");
    else if (threw && out != before) c.fail("model", {}, 1, "the output changed although the route raised Overflow");
    if (threw || c.res.mismatch) return;
  }
  const bool alias = !i32out && c.rng.chance(0.35);
  const i64 slack = alias ? 0 : c.rng.uniform(0, 70);
  c.geo.kv("N", n).kv("alias", alias).kv("slack", slack).kv("pad", pad);

  std::vector<Out> host_out;
  std::vector<i64> host_ids = ids;
  if constexpr (std::is_same_v<Out, i64>) {
    if (alias) host_out = ids;
  }
  if (!alias) host_out = stale<Out>(c, n + slack);
  const std::vector<Out> initial = host_out;
  {
    const Vec<const i64> hid{alias ? reinterpret_cast<const i64*>(host_out.data()) : host_ids.data(), n};
    const Vec<Out> hout{host_out.data(), ssz(host_out.size())};
    if (swa) translate::swa_translate(SwaTranslateArgs<Out>{hid, cvec(p.v2p), ps, M, hout, c.variant});
    else translate::token_translate(TokenTranslateArgs<Out>{hid, cvec(p.v2p), ps, M, hout, c.variant});
  }
  if (!c.host_only) {
  Out* d_out = c.dev.up(initial);
  const i64* d_ids = alias ? reinterpret_cast<const i64*>(d_out) : c.dev.up(ids);
  const i64* d_v2p = c.dev.up_v2p(p.v2p);
  const Vec<const i64> did{d_ids, n};
  const Vec<Out> dout{d_out, ssz(initial.size())};
  if (swa) launch_swa_translate(SwaTranslateArgs<Out>{did, {d_v2p, ssz(p.v2p.size())}, ps, M, dout, c.variant}, nullptr);
  else launch_token_translate(TokenTranslateArgs<Out>{did, {d_v2p, ssz(p.v2p.size())}, ps, M, dout, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", host_out, d_out);
  }
  c.res.lanes += n;
  for (i64 i = 0; i < n && !c.res.mismatch; ++i) {
    c.model_lane("out", i, static_cast<i64>(host_out[sz(i)]), [&] { return model_id(ids[sz(i)]); });
  }
}

// A per-id route (kPerIdRoutes) from its spec alone: its ids are pool tokens (padding 0.05) over the
// pool's v2p, page_size drawn where the route has one (else 1), the multiplier likewise, the other
// scalars at their struct defaults; the spec's draw_sample(sample, rng) may redraw the ids and
// scalars. The variant is production or one of the route's behaviours; every lane is compared with
// id_model. Out is the route's output element type (an int32 output never aliases the int64 ids).
struct PerIdSample {
  std::vector<i64> ids;
  std::vector<i64> table;
  ViewSource scalars;
};

template <class S>
void per_id_spec_case(Ctx& c) {
  using P = PerIdShape<S>;
  std::vector<Variant> planted;
  for (int b = 0; b < kBehaviourCount; ++b)
    if (S::accepts(static_cast<Behaviour>(b))) planted.push_back(Variant::of(static_cast<Behaviour>(b)));
  c.variant = c.choose_variant(planted);
  using Out = std::remove_cv_t<std::remove_pointer_t<decltype(P::out(typename S::Args{}).data)>>;
  const i64 ps = has_field<S>("page_size") ? pick_ps(c, false) : 1, M = has_field<S>("multiplier") ? pick_m(c) : 1;
  const i64 n = lanes_for(c);
  mark_ps(c, ps);
  constexpr bool int32_out = std::is_same_v<Out, i32>;  // an int32 output: ids in int32, no pages past 2^31
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, std::max<i64>(2, c.scale / ps + 2)), int32_out, !int32_out);
  PerIdSample s;
  s.ids.resize(sz(n));
  for (auto& t : s.ids) t = token(c, p, 0.05);
  s.table = p.v2p;
  if constexpr (has_field<S>("page_size")) s.scalars.set("page_size", ps);
  if constexpr (has_field<S>("multiplier")) s.scalars.set("multiplier", M);
  if constexpr (requires { S::draw_sample(s, c.rng); }) S::draw_sample(s, c.rng);
  set_scalar_defaults<S>(s.scalars);
  std::apply(
      [&](const auto&... f) {
        auto one = [&](const auto& fi) {
          constexpr ArgKind k = std::remove_cvref_t<decltype(fi)>::kind;
          if constexpr (k == ArgKind::int64) {
            if (fi.name != "page_size" && fi.name != "multiplier") c.geo.kv(fi.name.data(), s.scalars.scalar(fi.name));
          } else if constexpr (k == ArgKind::boolean) {
            c.geo.kv(fi.name.data(), s.scalars.flag(fi.name));
          }
        };
        (one(f), ...);
      },
      S::fields());
  c.geo.kv("N", n);
  const auto args = [&](Vec<const i64> ids, Vec<const i64> table, Vec<Out> out) {
    ViewSource src = s.scalars;
    src.set(P::ids_name, ids);
    src.set(P::table_name, table);
    src.set(P::out_name, out);
    auto a = fill_args<S>(src);
    set_variant(a, c.variant);
    return a;
  };
  const auto host = [&](Vec<const i64> ids, Vec<Out> out) { S::run(args(ids, cvec(s.table), out)); };
  const auto device = [&](Vec<const i64> ids, Vec<Out> out) {
    launch(args(ids, {c.dev.up_v2p(s.table), ssz(s.table.size())}, out), nullptr);
  };
  const auto want = [&](i64 i, i64) { return id_model(S{}, s.table, s.scalars, s.ids[sz(i)]); };
  if constexpr (std::is_same_v<Out, i64>) {
    if (c.edge_on(0.3)) return alias_case(c, gen::AliasRule::exact, s.ids, n, host, device, want, [&](i64) { return n; });
  }
  std::vector<Out> host_out = stale<Out>(c, n + 3);
  const std::vector<Out> initial = host_out;
  host(cvec(s.ids), mvec(host_out));
  if (!c.host_only) {
    Out* d_out = c.dev.up(initial);
    device({c.dev.up(s.ids), n}, {d_out, ssz(initial.size())});
    cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    c.compare("out", host_out, d_out);
  }
  c.res.lanes += n;
  for (i64 i = 0; i < n && !c.res.mismatch; ++i) c.model_lane("out", i, host_out[sz(i)], [&] { return want(i, 0); });
}

void case_per_id(Ctx& c, Route r) {
  visit_route(r, [&](auto spec) {
    using S = decltype(spec);
    if constexpr (uses_per_id_runner<S>) per_id_spec_case<S>(c);
  });
}

void case_write_loc(Ctx& c) {
  c.variant = c.choose_variant({Variant::b06_stale_tail, Variant::e02_minus_one_sentinel, Variant::e03_int32_offset});
  const i64 ps = pick_ps(c, false), M = pick_m(c), n = lanes_for(c);
  mark_ps(c, ps);
  const i64 dcp = c.rng.pick<i64>({1, 1, 2, 4, 14, 16});
  const i64 rank = c.rng.uniform(0, dcp - 1);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, std::max<i64>(2, c.scale / ps + 2)), false, true);
  std::vector<i64> loc(sz(n));
  for (auto& l : loc) {
    const i64 t = token(c, p, 0.1);
    l = t < 0 ? c.rng.pick<i64>({0, -1}) : t * dcp + c.rng.uniform(0, dcp - 1);
  }
  const i64 width = n + c.rng.uniform(0, 300);  // out_width: stale tail to zero
  c.geo.kv("N", n).kv("out_width", width).kv("dcp_size", dcp).kv("dcp_rank", rank);
  if (c.edge_on(0.3)) {  // out starting at loc and wider is admitted (prefix rule)
    std::vector<model::WidenedWriteLoc> w(loc.size());
    for (std::size_t i = 0; i < loc.size(); ++i) w[i] = model::WidenedWriteLoc(loc[i]);
    std::vector<i64> want;
    return alias_case(
        c, gen::AliasRule::prefix, loc, n,
        [&](Vec<const i64> in, Vec<i64> out) { translate::write_loc({in, cvec(p.v2p), ps, M, dcp, rank, out, c.variant}); },
        [&](Vec<const i64> in, Vec<i64> out) {
          launch_write_loc({in, {c.dev.up_v2p(p.v2p), ssz(p.v2p.size())}, ps, M, dcp, rank, out, c.variant}, nullptr);
        },
        [&](i64 i, i64 out_width) {
          if (ssz(want.size()) != out_width) want = model::write_loc_lanes(p.v2p, ps, M, dcp, rank, w, out_width);
          return want[sz(i)];
        },
        [](i64 out_width) { return out_width; });
  }
  std::vector<i64> host_out = stale<i64>(c, width);
  const std::vector<i64> initial = host_out;
  translate::write_loc({cvec(loc), cvec(p.v2p), ps, M, dcp, rank, mvec(host_out), c.variant});
  if (!c.host_only) {
  i64* d_out = c.dev.up(initial);
  launch_write_loc({{c.dev.up(loc), n}, {c.dev.up_v2p(p.v2p), ssz(p.v2p.size())}, ps, M, dcp, rank, {d_out, width}, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", host_out, d_out);
  }
  c.res.lanes += width;
  if (c.compare_model && (c.variant == Variant::production || c.forced) && !c.res.mismatch) {
    std::vector<model::WidenedWriteLoc> w(loc.size());
    for (std::size_t i = 0; i < loc.size(); ++i) w[i] = model::WidenedWriteLoc(loc[i]);
    std::vector<i64> want;
    try {
      want = model::write_loc_lanes(p.v2p, ps, M, dcp, rank, w, width);
    } catch (const std::exception& e) {
      c.fail("model", {}, 1, std::string("model threw: ") + e.what());
      return;
    }
    for (i64 i = 0; i < width && !c.res.mismatch; ++i)
      c.model_lane("out", i, host_out[sz(i)], [&] { return want[sz(i)]; });
  }
}

void case_kv_inplace(Ctx& c) {
  c.variant = c.choose_variant({Variant::b05_rebind_fresh});
  const i64 ps = pick_ps(c, false), M = pick_m(c);
  mark_ps(c, ps);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, std::max<i64>(2, c.scale / ps + 2)), true);
  const i64 bs = c.rng.uniform(0, 64);
  const i64 total = lanes_for(c);
  std::vector<i32> indptr(sz(bs + 1 + c.rng.uniform(0, 3)), 0);
  for (i64 b = 1; b <= bs; ++b) indptr[sz(b)] = static_cast<i32>(b == bs ? total : std::min<i64>(total, c.rng.uniform(indptr[sz(b - 1)], total)));
  for (std::size_t b = sz(bs + 1); b < indptr.size(); ++b) indptr[b] = indptr[sz(bs)] + 1000;  // past bs: never read
  const i64 n = bs == 0 ? 0 : total;
  const i64 tail = c.rng.uniform(0, 3) * n + c.rng.uniform(0, 16);
  const bool separate_src = c.rng.chance(0.5);
  std::vector<i32> virt(sz(n));
  for (auto& t : virt) t = static_cast<i32>(token(c, p, 0.05));
  std::vector<i32> buf(sz(n + tail), 1 << 30);  // stale ids outside the table in the tail
  if (!separate_src) std::copy(virt.begin(), virt.end(), buf.begin());
  // In place, src may also be given as kv_indices itself (exactly aliased: admitted).
  const bool src_alias = !separate_src && c.edge_on(0.25);
  if (src_alias) c.mark("alias_admitted");
  c.geo.kv("batch_size", bs).kv("n", n).kv("tail", tail).kv("separate_src", separate_src).kv("src_alias", src_alias);
  const std::vector<i32> initial = buf;
  const Vec<const i32> hsrc = separate_src ? cvec(virt) : src_alias ? Vec<const i32>{buf.data(), ssz(buf.size())} : Vec<const i32>{};
  translate::kv_indices_inplace({mvec(buf), cvec(indptr), bs, hsrc, cvec(p.v2p), ps, M, c.variant});
  if (!c.host_only) {
  i32* d_buf = c.dev.up(initial);
  const Vec<const i32> dsrc = separate_src ? Vec<const i32>{c.dev.up(virt), n}
                              : src_alias ? Vec<const i32>{d_buf, ssz(initial.size())} : Vec<const i32>{};
  launch_kv_indices_inplace({{d_buf, ssz(initial.size())}, {c.dev.up(indptr), ssz(indptr.size())}, bs, dsrc, {c.dev.up_v2p(p.v2p), ssz(p.v2p.size())}, ps, M, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("kv_indices", buf, d_buf);
  }
  c.res.lanes += n;
  for (i64 i = 0; i < n && !c.res.mismatch; ++i)
    c.model_lane("kv_indices", i, buf[sz(i)], [&] {
      return static_cast<i64>(static_cast<i32>(model::kernel_id(p.v2p, ps, M, model::VirtualToken(virt[sz(i)])).value));
    });
}

void case_envelope(Ctx& c) {
  c.variant = Variant::production;
  const i64 ps = pick_ps(c, false);
  mark_ps(c, ps);
  const i64 runs = std::max<i64>(0, lanes_for(c) / ps);
  std::vector<i64> dst(sz(runs * ps)), src(sz(runs * ps));
  for (i64 r = 0; r < runs; ++r) {
    const i64 dp = c.rng.uniform(0, 1 << 20), sp = c.rng.uniform(0, 1 << 20);
    for (i64 k = 0; k < ps; ++k) {
      dst[sz(r * ps + k)] = dp * ps + k;
      src[sz(r * ps + k)] = sp * ps + k;
    }
  }
  c.geo.kv("ps", ps).kv("runs", runs);
  std::vector<i64> hd = stale<i64>(c, runs + 4), hs = stale<i64>(c, runs + 4);
  const std::vector<i64> id = hd, is = hs;
  translate::envelope_moves({cvec(dst), cvec(src), ps, mvec(hd), mvec(hs)});
  if (!c.host_only) {
  i64* dd = c.dev.up(id);
  i64* ds = c.dev.up(is);
  launch_envelope_moves({{c.dev.up(dst), ssz(dst.size())}, {c.dev.up(src), ssz(src.size())}, ps, {dd, ssz(id.size())}, {ds, ssz(is.size())}}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("dst_pages", hd, dd);
  c.compare("src_pages", hs, ds);
  }
  c.res.lanes += 2 * runs;
}


template void case_token<i64>(Ctx& c, bool swa);
template void case_token<i32>(Ctx& c, bool swa);

}  // namespace kvaddr::gpu::diffcase
