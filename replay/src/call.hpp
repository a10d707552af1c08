#pragma once
// The replay of one manifest call (replay.cpp), used by the manifest-level driver (report.cpp).
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/replay.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr::replay::detail {

// A per-call problem inside replay: never leaves the library (report.cpp turns it into CallStatus::error
// with this message), so it carries free text rather than the argument / value / reason of kvaddr::Error,
// and the kind of the error behind it (CallReport::error_kind).
class CallError : public std::runtime_error {
 public:
  explicit CallError(const std::string& what, ErrorKind kind = ErrorKind::invalid_argument)
      : std::runtime_error(what), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};
[[noreturn]] inline void bad(const std::string& what, ErrorKind kind = ErrorKind::invalid_argument) {
  throw CallError(what, kind);
}

// An input the kernel read with another stride than the recorded one (issue 33), claimed as a part of
// "variant": stride_ignored(name) (read packed from the view's first element, ignoring the recorded
// stride) or stride0(name) (every lane reads the view's first element).
struct Presentation {
  enum Kind { packed, zero } kind = packed;
  std::string input;
  std::string text() const { return (kind == packed ? "stride_ignored(" : "stride0(") + input + ")"; }
};

// Era / flag handling shared by every route: returns the claimed variant.
struct Claim {
  Variant variant = Variant::production;
  std::optional<bool> zero_tail;  // from flags.tail_policy
  std::vector<Presentation> presented;  // the stride parts of "variant"
};

// The claim's spelling: the variant's name, then its stride parts.
std::string claim_text(const Claim& c, Route route);

// The variant a call claims, from "variant" and "flags" (claim.cpp); CallError when they
// contradict each other or name a variant the route does not have.
Claim read_claim(const nlohmann::json& call, Route route);
// Era claim (spec §0.2): informational, except that Eras A and D have no multiplier.
void check_era(const nlohmann::json& call);

// Fills `r` for one call of the manifest. Throws (any std::exception) when the call cannot be
// checked; the caller turns that into CallStatus::error.
void check_call(const nlohmann::json& call, const std::filesystem::path& dir, const ReplayOptions& options, CallReport& r);

}  // namespace kvaddr::replay::detail
