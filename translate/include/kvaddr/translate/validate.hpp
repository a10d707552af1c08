#pragma once
// Shape/scalar validation of every route contract (no array contents are read, so the same
// checks guard the host routes and the CUDA launchers). Each throws a typed kvaddr::Error
// naming the argument and its value.
#include <string_view>

#include "kvaddr/translate/contracts.hpp"

namespace kvaddr {

std::string_view to_string(Variant v) noexcept;
std::string_view to_string(Route r) noexcept;
Variant parse_variant(std::string_view name);  // InvalidArgument("variant", name) if unknown
Route parse_route(std::string_view name);      // InvalidArgument("route", name) if unknown
void require_variant(Route r, Variant v);      // InvalidArgument("variant", ...) unless route_accepts

template <class Out> void validate(const TokenTranslateArgs<Out>& a);
void validate(const FlashmlaBlockTableArgs& a);
void validate(const CanonicalPageTableArgs& a);
void validate(const ReadTableArgs& a);
void validate(const ReadStreamArgs& a);
void validate(const DecodeMetadataArgs& a);
void validate(const EagerFunnelArgs& a);
void validate(const KvIndicesInplaceArgs& a);
void validate(const WriteLocArgs& a);
template <class Out> void validate(const SwaTranslateArgs<Out>& a);
void validate(const MambaTranslateArgs& a);
void validate(const FullPrefillTableArgs& a);
void validate(const DcpReadTranslateArgs& a);
void validate(const TransferIdsArgs& a);
void validate(const EnvelopeMoveArgs& a);

}  // namespace kvaddr
