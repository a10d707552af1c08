#pragma once
// Private: the host entry points (routes and their validation) as one list, and the switch that
// sends them to the mutation campaign's instantiation while a mutation::Campaign lives.
#include <atomic>
#include <cstdint>

#include "kvaddr/translate/contracts.hpp"

// X(function, argument struct) for every non-template host route; the validation of each
// argument struct is an entry point too.
#define KVADDR_HOST_ROUTES(X)                   \
  X(flashmla_block_table, FlashmlaBlockTableArgs) \
  X(canonical_page_table, CanonicalPageTableArgs) \
  X(read_table, ReadTableArgs)                  \
  X(read_stream, ReadStreamArgs)                \
  X(decode_metadata, DecodeMetadataArgs)        \
  X(eager_funnel, EagerFunnelArgs)              \
  X(kv_indices_inplace, KvIndicesInplaceArgs)   \
  X(write_loc, WriteLocArgs)                    \
  X(mamba_translate, MambaTranslateArgs)        \
  X(full_prefill_table, FullPrefillTableArgs)   \
  X(dcp_read_translate, DcpReadTranslateArgs)   \
  X(transfer_ids, TransferIdsArgs)              \
  X(envelope_moves, EnvelopeMoveArgs)
// The routes templated on their output element type (int32 and int64).
#define KVADDR_HOST_TEMPLATE_ROUTES(X)                   \
  X(token_translate, TokenTranslateArgs<std::int32_t>) \
  X(token_translate, TokenTranslateArgs<std::int64_t>) \
  X(swa_translate, SwaTranslateArgs<std::int32_t>)     \
  X(swa_translate, SwaTranslateArgs<std::int64_t>)

namespace kvaddr::translate::detail {

// Another instantiation of every entry point (run = the route, check = its validation).
class EntryPoints {
 public:
#define KVADDR_DECLARE(fn, A)                 \
  virtual void run(const A& a) const = 0; \
  virtual void check(const A& a) const = 0;
  KVADDR_HOST_ROUTES(KVADDR_DECLARE)
  KVADDR_HOST_TEMPLATE_ROUTES(KVADDR_DECLARE)
#undef KVADDR_DECLARE

 protected:
  ~EntryPoints() = default;
};

// Null in production; the mutation campaign's instantiation while a mutation::Campaign lives.
extern std::atomic<const EntryPoints*> g_entry_override;

inline const EntryPoints* entry_override() noexcept { return g_entry_override.load(std::memory_order_acquire); }

}  // namespace kvaddr::translate::detail
