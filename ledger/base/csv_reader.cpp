#include "ledger/base/csv_reader.hpp"

namespace corridor {

csv_reader::csv_reader(std::istream& in, std::uint64_t start_offset, std::size_t record_bytes_max)
    : in_(in), offset_(start_offset), record_bytes_max_(record_bytes_max) {
    if (offset_ != 0) return;
    static constexpr unsigned char bom[] = {0xEF, 0xBB, 0xBF};
    char head[3] = {};
    in_.read(head, 3);
    auto got = in_.gcount();
    if (got == 3 && static_cast<unsigned char>(head[0]) == bom[0] &&
        static_cast<unsigned char>(head[1]) == bom[1] &&
        static_cast<unsigned char>(head[2]) == bom[2]) {
        offset_ = 3;
        return;
    }
    in_.clear();
    for (auto i = got; i > 0; --i) in_.putback(head[i - 1]);
}

int csv_reader::get() {
    int c = in_.rdbuf()->sbumpc();
    if (c != std::char_traits<char>::eof()) ++offset_;
    return c;
}

int csv_reader::peek() {
    return in_.rdbuf()->sgetc();
}

// Drops the rest of the physical line, so the next record starts on the next line.
csv_status csv_reader::fail(std::string message) {
    error_ = std::move(message);
    constexpr int eof = std::char_traits<char>::eof();
    for (int c = get(); c != eof && c != '\n'; c = get()) {
    }
    return csv_status::malformed;
}

csv_status csv_reader::next(std::vector<std::string>& fields) {
    constexpr int eof = std::char_traits<char>::eof();
    for (;;) {
        fields.clear();
        error_.clear();
        int c = peek();
        if (c == eof) return csv_status::end;
        if (c == '\n' || c == '\r') {  // a blank line
            get();
            if (c == '\r' && peek() == '\n') get();
            continue;
        }
        std::size_t record_bytes = 0;
        fields.emplace_back();
        for (;;) {
            std::string& field = fields.back();
            c = get();
            if (c == '"' && field.empty()) {
                // A quoted field: runs to the closing quote; "" is one quote.
                for (;;) {
                    c = get();
                    if (c == eof) {
                        error_ = "a quoted field is not closed before the end of the file";
                        return csv_status::malformed;
                    }
                    if (++record_bytes > record_bytes_max_) {
                        return fail("the record is longer than " +
                                    std::to_string(record_bytes_max_) + " bytes");
                    }
                    if (c == '"') {
                        if (peek() != '"') break;
                        get();
                    }
                    field.push_back(static_cast<char>(c));
                }
                c = get();
                if (c != ',' && c != '\n' && c != '\r' && c != eof) {
                    return fail(
                        "a closing quote must be followed by a comma or the end of the line");
                }
            } else {
                while (c != ',' && c != '\n' && c != '\r' && c != eof) {
                    if (c == '"')
                        return fail("a quote inside an unquoted field; quote the whole field");
                    if (++record_bytes > record_bytes_max_) {
                        return fail("the record is longer than " +
                                    std::to_string(record_bytes_max_) + " bytes");
                    }
                    field.push_back(static_cast<char>(c));
                    c = get();
                }
            }
            if (c == ',') {
                fields.emplace_back();
                continue;
            }
            if (c == '\r' && peek() == '\n') get();
            return csv_status::record;
        }
    }
}

}  // namespace corridor
