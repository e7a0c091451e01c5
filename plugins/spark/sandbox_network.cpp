#include "plugins/spark/sandbox_network.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "plugins/common/random_bytes.hpp"
#include "rails/rail_sdk/formats/text.hpp"

namespace corridor::spark {
namespace json = boost::json;
using corridor::formats::hex_encode;

namespace {

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return in ? text.str() : std::string();
}

// Writes the whole text to a new file and syncs it; false with errno set on any failure.
bool write_synced(const std::filesystem::path& path, const std::string& text) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    std::size_t written = 0;
    while (written < text.size()) {
        ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int saved = errno;
            ::close(fd);
            errno = saved;
            return false;
        }
        written += static_cast<std::size_t>(n);
    }
    bool ok = ::fsync(fd) == 0;
    int saved = errno;
    ::close(fd);
    errno = saved;
    return ok;
}

// The new name must survive a crash too, once the payer has reported the payout settled.
void sync_directory(const std::filesystem::path& dir) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    ::fsync(fd);
    ::close(fd);
}

bool ends_with(const std::string& text, std::string_view tail) {
    return text.size() >= tail.size() &&
           text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

const json::string* string_at(const json::object& object, std::string_view key) {
    const json::value* value = object.if_contains(key);
    return value != nullptr && value->is_string() ? &value->as_string() : nullptr;
}

// Who paid an existing record: this payer's same operation (a retry), or someone else.
payment_result outcome_of_existing(const std::filesystem::path& record, const std::string& hash,
                                   const std::string& payer_hex,
                                   const std::string& payer_operation_id) {
    boost::system::error_code error;
    json::value parsed = json::parse(read_file(record), error);
    if (!error && parsed.is_object()) {
        const auto* payer = string_at(parsed.as_object(), "payer");
        const auto* operation = string_at(parsed.as_object(), "payerOperationId");
        if (payer && operation && *payer == payer_hex && *operation == payer_operation_id)
            return {payment_outcome::paid_before_by_us, ""};
    }
    return {payment_outcome::already_paid, "invoice " + hash + " was already paid"};
}

}  // namespace

sandbox_network::sandbox_network(std::filesystem::path dir)
    : payments_(std::move(dir) / "payments") {
    std::error_code error;
    std::filesystem::create_directories(payments_, error);
    if (error || !std::filesystem::is_directory(payments_))
        throw std::runtime_error("sandbox_network_dir: " + payments_.string() +
                                 " cannot be created: " + error.message());
}

payment_result sandbox_network::pay(const std::string& invoice_text, const decoded_invoice& invoice,
                                    std::uint64_t amount_msat, const std::string& payer_hex,
                                    const std::string& payer_operation_id,
                                    std::int64_t now_ms) const {
    const std::string hash = hex_encode(invoice.fields.payment_hash);
    const std::filesystem::path record = payments_ / (hash + ".json");
    std::error_code error;
    if (std::filesystem::exists(record, error))
        return outcome_of_existing(record, hash, payer_hex, payer_operation_id);

    std::array<std::uint8_t, 8> nonce{};
    corridor::plugin_random::fill(nonce.data(), nonce.size());
    const std::filesystem::path temporary =
        payments_ / ("." + hash + "." + hex_encode(nonce) + ".tmp");
    json::object body{{"version", 1},
                      {"paymentHash", hash},
                      {"invoice", invoice_text},
                      {"amountMsat", amount_msat},
                      {"paidAtMs", now_ms},
                      {"payer", payer_hex},
                      {"payerOperationId", payer_operation_id}};
    if (!write_synced(temporary, json::serialize(body))) {
        std::string why = std::strerror(errno);
        ::unlink(temporary.c_str());
        return {payment_outcome::failed, "the sandbox network folder cannot be written: " + why};
    }
    // link() creates the name only if it does not exist: of two payers racing, exactly one wins.
    int linked = ::link(temporary.c_str(), record.c_str());
    int saved = errno;
    ::unlink(temporary.c_str());
    if (linked == 0) {
        sync_directory(payments_);
        return {payment_outcome::paid, ""};
    }
    if (saved == EEXIST) return outcome_of_existing(record, hash, payer_hex, payer_operation_id);
    return {payment_outcome::failed,
            std::string("the sandbox network folder cannot be written: ") + std::strerror(saved)};
}

std::vector<received_payment> sandbox_network::receive(const bytes33& payee, ln_network network,
                                                       std::size_t max,
                                                       std::vector<std::string>& problems) {
    std::vector<std::string> names;
    std::error_code error;
    for (std::filesystem::directory_iterator it(payments_, error), end; !error && it != end;
         it.increment(error)) {
        std::string name = it->path().filename().string();
        if (name.starts_with(".") || !ends_with(name, ".json") || seen_.contains(name)) continue;
        names.push_back(std::move(name));
    }
    if (error) {
        problems.push_back("cannot list " + payments_.string() + ": " + error.message());
        return {};
    }
    std::sort(names.begin(), names.end());  // a stable order, for the logs and the tests
    std::vector<received_payment> out;
    for (const auto& name : names) {
        if (out.size() >= max) break;  // the rest on the next call
        seen_.insert(name);
        boost::system::error_code parse_error;
        json::value parsed = json::parse(read_file(payments_ / name), parse_error);
        const json::object* record = parsed.if_object();
        const json::string* text = record ? string_at(*record, "invoice") : nullptr;
        const json::value* amount = record ? record->if_contains("amountMsat") : nullptr;
        const json::value* paid_at = record ? record->if_contains("paidAtMs") : nullptr;
        if (parse_error || text == nullptr || amount == nullptr || !amount->is_number() ||
            paid_at == nullptr || !paid_at->is_number()) {
            problems.push_back(name + ": not a payment record");
            continue;
        }
        auto invoice = decode_invoice(std::string(*text));
        if (!invoice) {
            problems.push_back(name + ": its invoice does not decode: " + invoice.error().message);
            continue;
        }
        if (invoice->payee != payee || invoice->fields.network != network) continue;  // not ours
        std::string hash = hex_encode(invoice->fields.payment_hash);
        boost::system::error_code number_error;
        auto msat = amount->to_number<std::uint64_t>(number_error);
        if (name != hash + ".json" || number_error || msat == 0) {
            problems.push_back(name + ": the record does not match its invoice");
            continue;
        }
        if (invoice->fields.amount_msat && msat < *invoice->fields.amount_msat) {
            problems.push_back(name + ": pays " + std::to_string(msat) + " msat of the invoice's " +
                               std::to_string(*invoice->fields.amount_msat));
            continue;
        }
        out.push_back({hash, std::move(invoice.value()), msat,
                       paid_at->to_number<std::int64_t>(number_error)});
    }
    return out;
}

}  // namespace corridor::spark
