#pragma once
// A streaming multipart/form-data reader (RFC 7578 over RFC 2046): bytes go in as they arrive, and
// each part's headers and data come out through callbacks, so a body of any size is read with
// memory bounded by one chunk plus the boundary. No Beast here.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace corridor {

// The boundary parameter of a multipart/form-data Content-Type; nullopt when it is not one.
std::optional<std::string> multipart_boundary(std::string_view content_type);

struct multipart_part_head {
    std::string name;      // the form field name of Content-Disposition
    std::string filename;  // empty when none was given
    std::string content_type;
};

class multipart_reader {
public:
    using begin_fn = std::function<void(const multipart_part_head&)>;
    using data_fn = std::function<void(std::string_view)>;
    using end_fn = std::function<void()>;

    multipart_reader(std::string boundary, begin_fn on_begin, data_fn on_data, end_fn on_end);

    // Feeds the next bytes of the body; false (with error()) when the body is malformed.
    bool feed(std::string_view bytes);
    // After the last bytes: false unless the closing boundary was seen.
    bool finish();
    const std::string& error() const { return error_; }

private:
    enum class state { preamble, after_boundary, headers, data, done, failed };
    bool step();
    bool fail(std::string message);
    bool parse_headers(std::string_view block);

    std::string delimiter_;  // CRLF "--" boundary
    begin_fn on_begin_;
    data_fn on_data_;
    end_fn on_end_;
    std::string pending_;
    state state_ = state::preamble;
    std::string error_;
};

}  // namespace corridor
