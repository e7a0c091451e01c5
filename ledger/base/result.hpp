#pragma once
// Business outcomes are values: a store function returns either its value or a domain error enum.
#include <utility>
#include <variant>

#include "ledger/base/assert.hpp"

namespace corridor {

template <class T, class E>
class result {
public:
    result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
    result(E error) : state_(std::in_place_index<1>, error) {}

    bool ok() const { return state_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() {
        CORRIDOR_ASSERT(ok());
        return std::get<0>(state_);
    }
    const T& value() const {
        CORRIDOR_ASSERT(ok());
        return std::get<0>(state_);
    }
    E error() const {
        CORRIDOR_ASSERT(!ok());
        return std::get<1>(state_);
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

private:
    std::variant<T, E> state_;
};

}  // namespace corridor
