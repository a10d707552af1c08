#pragma once
// Internal to `kvaddr merge` (shard.cpp): the per-schema merges and the checked reads they share.
// Every count a merge sums is read by count_of (a non-negative int64, else InvalidArgument naming
// the file and the field) and summed by add_count (Overflow naming the file and the field).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvaddr::cli::merge {

using json = nlohmann::json;

// One shard's report, in shard order (shards[i] is shard i of shards.size()).
struct Input {
  const json* doc;
  std::string name;
};

// A short rendering of a value for an error message.
std::string shown(const json& v);

// Throws InvalidArgument(file, value, "field \"<field>\" must be <want>").
[[noreturn]] void bad_field(const std::string& file, const std::string& field, const json& value,
                            const std::string& want);

// The count `v` (named `field` of `file`): an integer in [0, 2^63 - 1].
std::int64_t count_value(const json& v, const std::string& field, const std::string& file);
// `doc[field]` as count_value; 0 when absent.
std::int64_t count_of(const json& doc, const std::string& field, const std::string& file);
// a + b for two counts; Overflow(file, ..., field) when the sum passes 2^63 - 1.
std::int64_t add_count(std::int64_t a, std::int64_t b, const std::string& field, const std::string& file);
// The sum of count_of(field) over the shards.
std::int64_t sum_counts(const std::vector<Input>& shards, const std::string& field);
// The sum of the finite, non-negative number `field` (seconds) over the shards, rounded to 1 ms.
double sum_seconds(const std::vector<Input>& shards, const std::string& field);
// `doc[field]`, which must be an array of objects (empty when absent and !required).
const json& object_array(const json& doc, const std::string& field, const std::string& file, bool required);
// The arrays `field` of the shards put back in unsharded order: element p of the whole list is
// element p / n of shard p mod n. Each shard must hold exactly its round-robin slice.
json interleave(const std::vector<Input>& shards, const std::string& field);

json merge_diff(const std::vector<Input>& shards);
json merge_props(const std::vector<Input>& shards);
json merge_lifecycle(const std::vector<Input>& shards);
json merge_prove(const std::vector<Input>& shards);
json merge_zoo(const std::vector<Input>& shards);

}  // namespace kvaddr::cli::merge
