#pragma once
// A TEXT column that may be NULL, as soci binds it: the value and its indicator side by side, so
// that one row struct can be both read into and written from.
#include <soci/soci.h>

#include <optional>
#include <string>

namespace corridor {

struct nullable_text {
    std::string value;
    soci::indicator indicator = soci::i_null;

    nullable_text() = default;
    explicit nullable_text(const std::optional<std::string>& from)
        : value(from.value_or("")), indicator(from ? soci::i_ok : soci::i_null) {}
    std::optional<std::string> get() const {
        return indicator == soci::i_ok ? std::optional(value) : std::nullopt;
    }
};

}  // namespace corridor
