#pragma once
// The host entry points as one list: every host route (kvaddr::translate::<function>) with its
// argument struct; the validation of each argument struct (kvaddr::validate) is an entry point
// too. routes.hpp and validate.hpp declare them from it, the host library defines them from it.
// The per-id routes (KVADDR_PER_ID_ROUTE_SPEC: dcp_read_translate, transfer_ids, mamba_translate) are not listed
// here: their spec declares translate::<route>, validate.hpp's template validates them.
#include <cstdint>

#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/route_list.hpp"  // the per-id routes' specs declare their host routes

// X(function, argument struct) for every non-template host route.
#define KVADDR_HOST_ROUTES(X)                   \
  X(flashmla_block_table, FlashmlaBlockTableArgs) \
  X(canonical_page_table, CanonicalPageTableArgs) \
  X(read_table, ReadTableArgs)                  \
  X(read_stream, ReadStreamArgs)                \
  X(decode_metadata, DecodeMetadataArgs)        \
  X(eager_funnel, EagerFunnelArgs)              \
  X(kv_indices_inplace, KvIndicesInplaceArgs)   \
  X(write_loc, WriteLocArgs)                    \
  X(full_prefill_table, FullPrefillTableArgs)   \
  X(envelope_moves, EnvelopeMoveArgs)
// The routes templated on their output element type (int32 and int64).
#define KVADDR_HOST_TEMPLATE_ROUTES(X)                   \
  X(token_translate, TokenTranslateArgs<std::int32_t>) \
  X(token_translate, TokenTranslateArgs<std::int64_t>) \
  X(swa_translate, SwaTranslateArgs<std::int32_t>)     \
  X(swa_translate, SwaTranslateArgs<std::int64_t>)
