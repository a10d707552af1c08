#pragma once
// Host implementations of every production translation route (spec §4.1-4.13). Each route
// validates its contract, then runs the lane arithmetic of lanes.hpp with checked int64
// integers and bounds-checked table loads, writing exactly the lanes the kernel writes.
// Nothing here calls model/'s formulas: comparing a route with the model is a real check.
#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::translate {

template <class Out> void token_translate(const TokenTranslateArgs<Out>& a);  // Out = int32_t or int64_t
void flashmla_block_table(const FlashmlaBlockTableArgs& a);
void canonical_page_table(const CanonicalPageTableArgs& a);
void read_table(const ReadTableArgs& a);
void read_stream(const ReadStreamArgs& a);
void decode_metadata(const DecodeMetadataArgs& a);
void eager_funnel(const EagerFunnelArgs& a);
void kv_indices_inplace(const KvIndicesInplaceArgs& a);
void write_loc(const WriteLocArgs& a);
template <class Out> void swa_translate(const SwaTranslateArgs<Out>& a);
void mamba_translate(const MambaTranslateArgs& a);
void full_prefill_table(const FullPrefillTableArgs& a);
void dcp_read_translate(const DcpReadTranslateArgs& a);
void transfer_ids(const TransferIdsArgs& a);
void envelope_moves(const EnvelopeMoveArgs& a);

}  // namespace kvaddr::translate
