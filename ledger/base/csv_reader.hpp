#pragma once
// An incremental RFC 4180 reader: one record at a time from a stream, so a file of any size is read
// with memory bounded by its longest record. Quoted fields may hold commas, quotes ("") and line
// breaks; records end in CRLF or LF; a UTF-8 byte order mark at the start of the stream is skipped.
// offset() is the byte just past the last record returned, so a reader can later resume there.
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace corridor {

enum class csv_status { record, end, malformed };

class csv_reader {
public:
    // `start_offset` is where `in` is positioned (0 for a fresh file: the BOM check applies then).
    csv_reader(std::istream& in, std::uint64_t start_offset, std::size_t record_bytes_max);

    // The next record's fields. Blank lines are skipped. On `malformed` the reader has skipped to
    // the end of the offending line and error() says what was wrong; reading may continue.
    csv_status next(std::vector<std::string>& fields);
    std::uint64_t offset() const { return offset_; }
    const std::string& error() const { return error_; }

private:
    int get();
    int peek();
    csv_status fail(std::string message);

    std::istream& in_;
    std::uint64_t offset_;
    std::size_t record_bytes_max_;
    std::string error_;
};

}  // namespace corridor
