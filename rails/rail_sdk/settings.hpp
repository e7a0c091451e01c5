// <corridor/rail_sdk/settings.hpp>: reading the JSON a plugin is given (its settings in create,
// an account's details in validate_account and initiate) without a JSON library. Enough JSON for
// that: objects, arrays, strings (with escapes; \u below 0x80 only is decoded, others kept as
// UTF-8 of the code point), numbers (integers read exactly), true, false, null.
//
//   auto config = corridor::rail_sdk::json::parse(config_json);   // throws settings_error
//   std::string dir = config.text("data_dir");                     // required string
//   int64_t delay = config.integer_or("settle_after_ms", 1000);     // optional integer
//
// Every error is a settings_error (a rail_error with INVALID_ARGUMENT) whose message names the key,
// so create can let it propagate and the operator reads which setting is wrong.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"

namespace corridor::rail_sdk::json {

class settings_error : public rail_error {
public:
    explicit settings_error(const std::string& message)
        : rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT, message) {}
};

class value {
public:
    enum class kind { null, boolean, number, string, array, object };

    kind type() const noexcept { return kind_; }
    bool is_object() const noexcept { return kind_ == kind::object; }
    bool is_string() const noexcept { return kind_ == kind::string; }
    bool is_number() const noexcept { return kind_ == kind::number; }

    // For objects: the member, or nullptr.
    const value* find(std::string_view key) const {
        if (kind_ != kind::object) return nullptr;
        auto found = members_.find(std::string(key));
        return found == members_.end() ? nullptr : &found->second;
    }
    bool contains(std::string_view key) const { return find(key) != nullptr; }
    const std::map<std::string, value>& members() const noexcept { return members_; }
    const std::vector<value>& items() const noexcept { return items_; }

    // The string itself (for a string value), or the number's text.
    const std::string& raw() const noexcept { return text_; }
    bool as_bool() const noexcept { return flag_; }

    // Members read with their key named in errors.
    std::string text(std::string_view key) const {
        const value* v = find(key);
        if (v == nullptr || !v->is_string() || v->text_.empty())
            fail(key, "is required and must be a non-empty string");
        return v->text_;
    }
    std::string text_or(std::string_view key, std::string fallback) const {
        const value* v = find(key);
        if (v == nullptr) return fallback;
        if (!v->is_string()) fail(key, "must be a string");
        return v->text_;
    }
    int64_t integer(std::string_view key) const {
        const value* v = find(key);
        if (v == nullptr) fail(key, "is required and must be an integer");
        return v->to_integer(key);
    }
    int64_t integer_or(std::string_view key, int64_t fallback) const {
        const value* v = find(key);
        return v == nullptr ? fallback : v->to_integer(key);
    }
    bool boolean_or(std::string_view key, bool fallback) const {
        const value* v = find(key);
        if (v == nullptr) return fallback;
        if (v->kind_ != kind::boolean) fail(key, "must be true or false");
        return v->flag_;
    }

private:
    friend class parser;
    [[noreturn]] static void fail(std::string_view key, std::string_view what) {
        throw settings_error(std::string(key) + " " + std::string(what));
    }
    int64_t to_integer(std::string_view key) const {
        if (kind_ != kind::number || text_.find_first_of(".eE") != std::string::npos)
            fail(key, "must be an integer");
        try {
            std::size_t used = 0;
            long long out = std::stoll(text_, &used);
            if (used != text_.size()) fail(key, "must be an integer");
            return out;
        } catch (const std::out_of_range&) {
            fail(key, "is out of range");
        } catch (const std::invalid_argument&) {  // "-" or "+1": the scan takes any sign and digit run
            fail(key, "must be an integer");
        }
    }

    kind kind_ = kind::null;
    bool flag_ = false;
    std::string text_;
    std::vector<value> items_;
    std::map<std::string, value> members_;
};

class parser {
public:
    explicit parser(std::string_view text) : text_(text) {}

    value document() {
        value out = read();
        skip_space();
        if (at_ != text_.size()) error("unexpected text after the JSON value");
        return out;
    }

private:
    static constexpr int depth_max = 64;

    [[noreturn]] void error(const std::string& what) const {
        throw settings_error("invalid JSON at offset " + std::to_string(at_) + ": " + what);
    }
    void skip_space() {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' ||
                                      text_[at_] == '\n' || text_[at_] == '\r'))
            ++at_;
    }
    bool take(char c) {
        skip_space();
        if (at_ < text_.size() && text_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!take(c)) error(std::string("expected '") + c + "'");
    }
    bool word(std::string_view w) {
        if (text_.substr(at_, w.size()) != w) return false;
        at_ += w.size();
        return true;
    }

    value read() {
        if (++depth_ > depth_max) error("nested too deeply");
        skip_space();
        if (at_ >= text_.size()) error("unexpected end");
        value out;
        char c = text_[at_];
        if (c == '{') {
            ++at_;
            out.kind_ = value::kind::object;
            if (!take('}')) {
                do {
                    skip_space();
                    std::string key = string();
                    expect(':');
                    out.members_[key] = read();
                } while (take(','));
                expect('}');
            }
        } else if (c == '[') {
            ++at_;
            out.kind_ = value::kind::array;
            if (!take(']')) {
                do out.items_.push_back(read());
                while (take(','));
                expect(']');
            }
        } else if (c == '"') {
            out.kind_ = value::kind::string;
            out.text_ = string();
        } else if (word("true") || word("false")) {
            out.kind_ = value::kind::boolean;
            out.flag_ = text_[at_ - 1] == 'e' && text_[at_ - 2] == 'u';
        } else if (word("null")) {
            out.kind_ = value::kind::null;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            out.kind_ = value::kind::number;
            std::size_t start = at_;
            while (at_ < text_.size() &&
                   std::string_view("+-0123456789.eE").find(text_[at_]) != std::string_view::npos)
                ++at_;
            out.text_ = std::string(text_.substr(start, at_ - start));
        } else {
            error("unexpected character");
        }
        --depth_;
        return out;
    }

    std::string string() {
        if (at_ >= text_.size() || text_[at_] != '"') error("expected a string");
        ++at_;
        std::string out;
        while (at_ < text_.size() && text_[at_] != '"') {
            char c = text_[at_++];
            if (static_cast<unsigned char>(c) < 0x20) error("control character in a string");
            if (c != '\\') {
                out.push_back(c);
                continue;
            }
            if (at_ >= text_.size()) break;
            char e = text_[at_++];
            switch (e) {
                case '"': out.push_back('"'); break;
                case '\\': out.push_back('\\'); break;
                case '/': out.push_back('/'); break;
                case 'b': out.push_back('\b'); break;
                case 'f': out.push_back('\f'); break;
                case 'n': out.push_back('\n'); break;
                case 'r': out.push_back('\r'); break;
                case 't': out.push_back('\t'); break;
                case 'u': append_code_point(out); break;
                default: error("unknown escape");
            }
        }
        if (at_ >= text_.size()) error("unterminated string");
        ++at_;
        return out;
    }

    void append_code_point(std::string& out) {
        if (at_ + 4 > text_.size()) error("short \\u escape");
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
            char h = text_[at_++];
            code <<= 4;
            if (h >= '0' && h <= '9')
                code |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f')
                code |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                code |= static_cast<unsigned>(h - 'A' + 10);
            else
                error("bad \\u escape");
        }
        if (code < 0x80) {
            out.push_back(static_cast<char>(code));
        } else if (code < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (code >> 6)));
            out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xE0 | (code >> 12)));
            out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
        }
    }

    std::string_view text_;
    std::size_t at_ = 0;
    int depth_ = 0;
};

// Parses a JSON document; throws settings_error naming the offset.
inline value parse(std::string_view text) {
    return parser(text).document();
}

// Parses a JSON object (settings, account details); throws settings_error if it is not one.
inline value parse_object(std::string_view text, std::string_view what = "settings") {
    value out = parse(text);
    if (!out.is_object()) throw settings_error(std::string(what) + " must be a JSON object");
    return out;
}

}  // namespace corridor::rail_sdk::json
