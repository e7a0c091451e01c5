#pragma once
// Outcomes of parsing and validating wire formats. Rail libraries are linked into plugin .so files,
// so they carry their own small result type instead of the host's (a plugin includes nothing of
// ledger/ or server/). A bad input is a value naming the problem, never an exception.
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace corridor::formats {

// code: a stable machine-readable name (e.g. "bad_check_digit"); message: says what was wrong.
struct format_error {
    std::string code;
    std::string message;
};

inline format_error make_error(std::string code, std::string message) {
    return format_error{std::move(code), std::move(message)};
}

struct valid_t {};
inline constexpr valid_t valid{};

template <class T>
class [[nodiscard]] outcome {
public:
    outcome(T value) : state_(std::in_place_index<0>, std::move(value)) {}
    outcome(format_error error) : state_(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return state_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() {
        require(ok());
        return std::get<0>(state_);
    }
    const T& value() const {
        require(ok());
        return std::get<0>(state_);
    }
    const format_error& error() const {
        require(!ok());
        return std::get<1>(state_);
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

private:
    // Reading the wrong alternative is a programming error, not a bad input.
    static void require(bool condition) {
        if (!condition) std::abort();
    }
    std::variant<T, format_error> state_;
};

// A check that has no value to return beyond "it is well formed".
using verdict = outcome<valid_t>;

}  // namespace corridor::formats
