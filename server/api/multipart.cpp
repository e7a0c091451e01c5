#include "server/api/multipart.hpp"

#include <algorithm>
#include <cctype>

namespace corridor {
namespace {

constexpr std::size_t part_headers_bytes_max = 8192;

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

// The value of `name` among "; name=value" parameters, quoted or not.
std::optional<std::string> parameter(std::string_view header_value, std::string_view name) {
    std::size_t position = 0;
    while ((position = header_value.find(';', position)) != std::string_view::npos) {
        ++position;
        auto rest = trim(header_value.substr(position));
        auto equals = rest.find('=');
        if (equals == std::string_view::npos) continue;
        if (lower(trim(rest.substr(0, equals))) != name) continue;
        auto value = trim(rest.substr(equals + 1));
        if (!value.empty() && value.front() == '"') {
            std::string out;
            for (std::size_t i = 1; i < value.size(); ++i) {
                if (value[i] == '\\' && i + 1 < value.size()) {
                    out.push_back(value[++i]);
                } else if (value[i] == '"') {
                    return out;
                } else {
                    out.push_back(value[i]);
                }
            }
            return std::nullopt;  // unterminated
        }
        return std::string(value.substr(0, value.find(';')));
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> multipart_boundary(std::string_view content_type) {
    auto semicolon = content_type.find(';');
    if (lower(trim(content_type.substr(0, semicolon))) != "multipart/form-data")
        return std::nullopt;
    auto boundary = parameter(content_type, "boundary");
    // RFC 2046: 1 to 70 characters.
    if (!boundary || boundary->empty() || boundary->size() > 70) return std::nullopt;
    return boundary;
}

multipart_reader::multipart_reader(std::string boundary, begin_fn on_begin, data_fn on_data,
                                   end_fn on_end)
    : delimiter_("\r\n--" + boundary),
      on_begin_(std::move(on_begin)),
      on_data_(std::move(on_data)),
      on_end_(std::move(on_end)),
      // The first boundary may open the body without a preceding line break.
      pending_("\r\n") {}

bool multipart_reader::fail(std::string message) {
    error_ = std::move(message);
    state_ = state::failed;
    return false;
}

bool multipart_reader::feed(std::string_view bytes) {
    if (state_ == state::failed) return false;
    if (state_ == state::done) return true;  // the epilogue is ignored
    pending_.append(bytes);
    while (step()) {
    }
    return state_ != state::failed;
}

// Consumes what it can of pending_; true when it made progress and may make more.
bool multipart_reader::step() {
    switch (state_) {
        case state::preamble: {
            auto found = pending_.find(delimiter_);
            if (found == std::string::npos) {
                // Keep only what could still be the start of the delimiter.
                if (pending_.size() > delimiter_.size()) {
                    pending_.erase(0, pending_.size() - delimiter_.size());
                }
                return false;
            }
            pending_.erase(0, found + delimiter_.size());
            state_ = state::after_boundary;
            return true;
        }
        case state::after_boundary: {
            if (pending_.size() < 2) return false;
            if (pending_.compare(0, 2, "--") == 0) {
                state_ = state::done;
                pending_.clear();
                return false;
            }
            // Transport padding (spaces, tabs) may follow a boundary before its line break.
            auto line_end = pending_.find("\r\n");
            if (line_end == std::string::npos) {
                if (pending_.size() > 256) return fail("malformed multipart boundary line");
                return false;
            }
            if (!trim(std::string_view(pending_).substr(0, line_end)).empty()) {
                return fail("malformed multipart boundary line");
            }
            pending_.erase(0, line_end + 2);
            state_ = state::headers;
            return true;
        }
        case state::headers: {
            auto end = pending_.find("\r\n\r\n");
            std::size_t skip = 4;
            if (pending_.compare(0, 2, "\r\n") == 0) {  // a part without headers
                end = 0;
                skip = 2;
            }
            if (end == std::string::npos) {
                if (pending_.size() > part_headers_bytes_max)
                    return fail("multipart part headers are too large");
                return false;
            }
            if (!parse_headers(std::string_view(pending_).substr(0, end))) return false;
            pending_.erase(0, end + skip);
            state_ = state::data;
            return true;
        }
        case state::data: {
            auto found = pending_.find(delimiter_);
            if (found == std::string::npos) {
                if (pending_.size() > delimiter_.size()) {
                    std::size_t ready = pending_.size() - delimiter_.size();
                    on_data_(std::string_view(pending_).substr(0, ready));
                    pending_.erase(0, ready);
                }
                return false;
            }
            if (found > 0) on_data_(std::string_view(pending_).substr(0, found));
            on_end_();
            pending_.erase(0, found + delimiter_.size());
            state_ = state::after_boundary;
            return true;
        }
        case state::done:
        case state::failed: return false;
    }
    return false;
}

bool multipart_reader::parse_headers(std::string_view block) {
    multipart_part_head head;
    bool has_disposition = false;
    while (!block.empty()) {
        auto line_end = block.find("\r\n");
        auto line = block.substr(0, line_end);
        block =
            line_end == std::string_view::npos ? std::string_view() : block.substr(line_end + 2);
        auto colon = line.find(':');
        if (colon == std::string_view::npos) return fail("malformed multipart part header");
        auto name = lower(trim(line.substr(0, colon)));
        auto value = trim(line.substr(colon + 1));
        if (name == "content-disposition") {
            if (lower(value.substr(0, value.find(';'))) != "form-data") {
                return fail("a multipart part's Content-Disposition must be form-data");
            }
            auto field = parameter(value, "name");
            if (!field) return fail("a multipart part's Content-Disposition has no name");
            head.name = *field;
            head.filename = parameter(value, "filename").value_or("");
            has_disposition = true;
        } else if (name == "content-type") {
            head.content_type = std::string(value);
        }
    }
    if (!has_disposition) return fail("a multipart part has no Content-Disposition header");
    on_begin_(head);
    return true;
}

bool multipart_reader::finish() {
    if (state_ == state::failed) return false;
    if (state_ != state::done) return fail("the multipart body ends before its closing boundary");
    return true;
}

}  // namespace corridor
