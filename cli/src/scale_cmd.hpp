#pragma once
// The sharded and multi-GPU forms of `kvaddr diff` and `kvaddr props` (see shard.hpp).
#include <string>

#include "shard.hpp"
#include "subcommands.hpp"

#ifdef KVADDR_WITH_KERNELS
#include "kvaddr/kernels/diff.hpp"
#endif
#ifdef KVADDR_WITH_PROPS
#include "kvaddr/props/lifecycle.hpp"
#include "kvaddr/props/props.hpp"
#endif
#ifdef KVADDR_WITH_PROOFS
#include "kvaddr/proofs/registry.hpp"
#endif
#ifdef KVADDR_WITH_ZOO
#include "kvaddr/zoo/zoo.hpp"
#endif

namespace kvaddr::cli {

#ifdef KVADDR_WITH_PROPS
// The properties `options` selects (list order, after --only) that shard `shard` runs.
std::vector<std::string> props_shard_names(const props::Options& options, const Shard& shard);
// The JSON report of props: per-property seed, failure and reproduce string, the seed and the
// campaign of the run, "passed", and "shard" when sharded.
nlohmann::json props_report_json(const props::Report& report, const props::Options& options, const Shard& shard);
// Runs the lifecycle campaign (shard `shard` of it) and prints its report (kvaddr.lifecycle/1 under
// --json, the summary line otherwise); returns the exit status.
int run_lifecycle_sharded(props::lifecycle::CampaignOptions options, const Shard& shard, const Context& ctx);
#endif

#ifdef KVADDR_WITH_PROOFS
// Runs the obligations of shard `shard` (round-robin over those --only selects, registry order) and
// prints them (kvaddr.prove/1 with "passed", "campaign", "version", "shard"); returns the exit status.
int run_prove_sharded(proofs::RunOptions options, const Shard& shard, const Context& ctx);
#endif

#ifdef KVADDR_WITH_ZOO
// The JSON report of `kvaddr zoo` (kill matrix, the mutation campaign when `mutation`, seed,
// campaign, version, shard).
nlohmann::json zoo_report_json(const zoo::ZooReport& report, const zoo::MutationReport* mutation,
                               const zoo::ZooOptions& options, const zoo::MutantOptions& mutant_options,
                               const Shard& shard);
#endif

#ifdef KVADDR_WITH_KERNELS
// The campaign object of a diff report (the options that define its case space).
nlohmann::json diff_campaign(const gpu::DiffOptions& options);
// Runs diff shard `shard` (on every GPU of the host when `devices`) and prints the report;
// returns the exit status.
int run_diff_sharded(gpu::DiffOptions options, const Shard& shard, bool devices, const std::string& svg,
                     const Context& ctx);
#endif

}  // namespace kvaddr::cli
