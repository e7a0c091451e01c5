#pragma once
// Prometheus text format, for the parts that render their own metrics: a metric's HELP and TYPE
// lines, then its samples, each "name value" or "name{label="value"} value".
#include <fmt/format.h>

#include <string>
#include <string_view>

namespace corridor {

inline void append_metric_header(std::string& out, std::string_view name, std::string_view type,
                                 std::string_view help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

template <typename Value>
void append_sample(std::string& out, std::string_view name, Value value) {
    out += fmt::format("{} {}\n", name, value);
}

template <typename Value>
void append_sample(std::string& out, std::string_view name, std::string_view label,
                   std::string_view label_value, Value value) {
    out += fmt::format("{}{{{}=\"{}\"}} {}\n", name, label, label_value, value);
}

// A metric with one sample and no labels.
template <typename Value>
void append_metric(std::string& out, std::string_view name, std::string_view type,
                   std::string_view help, Value value) {
    append_metric_header(out, name, type, help);
    append_sample(out, name, value);
}

}  // namespace corridor
