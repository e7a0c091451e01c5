#pragma once
// Small independent checks of text shapes the code under test produces.
#include <string>

namespace corridor::testing {

// Only the base64url alphabet (RFC 4648 section 5), no padding.
inline bool is_base64url(const std::string& text) {
    for (char c : text) {
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_';
        if (!ok) return false;
    }
    return true;
}

}  // namespace corridor::testing
