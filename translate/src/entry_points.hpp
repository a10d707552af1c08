#pragma once
// Private: the switch that sends the host entry points (host_routes.hpp) to the mutation
// campaign's instantiation while a mutation::Campaign lives.
#include <atomic>
#include <cstdint>

#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/host_routes.hpp"

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
  // The per-id runner (routes_per_id.ipp) of per-id route r, its Args at `a`, and its validation.
  virtual void run_per_id(Route r, const void* a) const = 0;
  virtual void check_per_id(Route r, const void* a) const = 0;

 protected:
  ~EntryPoints() = default;
};

// Null in production; the mutation campaign's instantiation while a mutation::Campaign lives.
extern std::atomic<const EntryPoints*> g_entry_override;

inline const EntryPoints* entry_override() noexcept { return g_entry_override.load(std::memory_order_acquire); }

}  // namespace kvaddr::translate::detail
