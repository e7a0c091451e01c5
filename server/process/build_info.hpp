#pragma once
// What this binary is: the release version and the source revision it was built from, for
// `corridor --version`, the start-up log line and the build-info metric.
#include <string_view>

namespace corridor {

struct build_info {
    std::string_view version;       // the project version of CMakeLists.txt
    std::string_view git_revision;  // `git describe` at configure time, "unknown" outside a checkout
};

const build_info& this_build();

}  // namespace corridor
