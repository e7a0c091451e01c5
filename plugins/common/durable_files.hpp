#pragma once
// The rail SDK's durable files (rails/rail_sdk/durable_files.hpp, installed as
// <corridor/rail_sdk/durable_files.hpp>), under the name the shipped plugins have always used.
#include "rails/rail_sdk/durable_files.hpp"

namespace corridor {
namespace plugin_files = rail_sdk::files;
}  // namespace corridor
