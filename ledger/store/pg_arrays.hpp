#pragma once
// PostgreSQL array literals of a batch's rows, one element per row: what the ledger writer's flush
// sends as the array parameters of its INSERT ... SELECT over unnest().
#include <string>
#include <vector>

namespace corridor {

// "{e1,e2,...}", each element written by element(out, row).
template <class Row, class Element>
std::string array_of(const std::vector<Row>& rows, Element element) {
    std::string out = "{";
    for (const auto& row : rows) {
        if (out.size() > 1) out += ',';
        element(out, row);
    }
    out += '}';
    return out;
}

// A text element: quoted, quotes and backslashes escaped.
inline void append_array_text(std::string& out, const std::string& text) {
    out += '"';
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    out += '"';
}

template <class Row, class Field>
std::string text_array(const std::vector<Row>& rows, Field field) {
    return array_of(
        rows, [field](std::string& out, const Row& row) { append_array_text(out, row.*field); });
}

template <class Row>
std::string number_array(const std::vector<Row>& rows, long long Row::*field) {
    return array_of(
        rows, [field](std::string& out, const Row& row) { out += std::to_string(row.*field); });
}

}  // namespace corridor
