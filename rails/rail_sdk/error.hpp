// <corridor/rail_sdk/error.hpp>: the status type and the exception a hook throws to end with a
// given status and message (the SDK's barrier turns it into both; see <corridor/rail_sdk.hpp>).
#pragma once

#include <stdexcept>
#include <string>

#include "../rail_abi.h"

namespace corridor::rail_sdk {

using status = corridor_rail_status;

// Thrown by plugin code to end a hook with a given status and a message for the caller.
class rail_error : public std::runtime_error {
public:
    rail_error(status code, const std::string& message)
        : std::runtime_error(message), code_(code) {}
    status code() const noexcept { return code_; }

private:
    status code_;
};

}  // namespace corridor::rail_sdk
