#include "server/process/logging.hpp"

#include "ledger/base/time_format.hpp"

#include <fcntl.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "server/process/access_log.hpp"

namespace corridor {
namespace {

constexpr std::string_view level_names[] = {"trace", "debug",    "info", "warn",
                                            "error", "critical", "off"};

int open_log_file(const std::string& path) {
    // 0600 on creation: log lines name customers' ids and addresses of the service's peers.
    return ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}

// Formats each message as one JSON line and writes it with one write(2) (O_APPEND keeps lines
// whole when several processes share a file). No buffering: a line is out when the call returns.
class json_line_sink final : public spdlog::sinks::base_sink<std::mutex> {
public:
    json_line_sink(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
    ~json_line_sink() override {
        if (fd_ > 2) ::close(fd_);
    }

    const std::string& path() const { return path_; }

    std::string reopen() {
        if (path_.empty()) return {};
        int fresh = open_log_file(path_);
        if (fresh < 0) return std::strerror(errno);
        int old = -1;
        {
            std::lock_guard lock(mutex_);
            old = fd_;
            fd_ = fresh;
        }
        if (old > 2) ::close(old);
        return {};
    }

protected:
    void sink_it_(const spdlog::details::log_msg& message) override {
        line_.clear();
        std::string_view prefix = prefix_of(message);
        std::string_view logger(message.logger_name.data(), message.logger_name.size());
        std::string_view payload(message.payload.data(), message.payload.size());
        if (logger == "access") {
            // One or more access entries, each a JSON object on its own line.
            while (!payload.empty()) {
                auto end = payload.find('\n');
                std::string_view entry = payload.substr(0, end);
                payload =
                    end == std::string_view::npos ? std::string_view() : payload.substr(end + 1);
                if (entry.empty()) continue;
                line_.append(prefix);
                line_.append(R"("message":"request")");
                if (entry.size() > 2 && entry.front() == '{') {
                    line_ += ',';
                    line_.append(entry.substr(1));
                } else {
                    line_ += '}';
                }
                line_ += '\n';
            }
        } else if (logger == "fields" && payload.starts_with("{\"message\":")) {
            line_.append(prefix);
            line_.append(payload.substr(1));
            line_ += '\n';
        } else {
            line_.append(prefix);
            line_.append(R"("message":)");
            append_json_string(line_, payload);
            if (!logger.empty() && logger != "corridor" && logger != "fields") {
                line_.append(R"(,"logger":)");
                append_json_string(line_, logger);
            }
            line_.append("}\n");
        }
        write_all(line_);
    }

    void flush_() override {}

private:
    std::string_view prefix_of(const spdlog::details::log_msg& message) {
        prefix_.clear();
        prefix_.append(R"({"time":")");
        prefix_.append(format_timestamp_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                                           message.time.time_since_epoch())
                                           .count()));
        prefix_.append(R"(","level":")");
        auto level = static_cast<std::size_t>(message.level);
        prefix_.append(level < std::size(level_names) ? level_names[level] : "info");
        prefix_.append(R"(",)");
        return prefix_;
    }

    void write_all(std::string_view bytes) {
        while (!bytes.empty()) {
            ssize_t wrote = ::write(fd_, bytes.data(), bytes.size());
            if (wrote < 0) {
                if (errno == EINTR) continue;
                return;  // nowhere left to say it
            }
            bytes.remove_prefix(static_cast<std::size_t>(wrote));
        }
    }

    int fd_;
    std::string path_;
    std::string prefix_;
    std::string line_;
};

std::shared_ptr<json_line_sink>& current_sink() {
    static std::shared_ptr<json_line_sink> sink;
    return sink;
}

const std::string no_path;

}  // namespace

void install_json_logging(const std::string& level, const std::string& file) {
    int fd = 2;
    if (!file.empty()) {
        fd = open_log_file(file);
        if (fd < 0) {
            throw std::runtime_error("cannot open log.file " + file + ": " + std::strerror(errno));
        }
    }
    auto sink = std::make_shared<json_line_sink>(fd, file);
    spdlog::drop_all();
    auto make = [&sink](const std::string& name) {
        auto logger = std::make_shared<spdlog::logger>(name, sink);
        spdlog::register_logger(logger);
        return logger;
    };
    auto main_logger = make("corridor");
    spdlog::set_default_logger(main_logger);
    spdlog::set_level(spdlog::level::from_str(level));
    make("fields")->set_level(main_logger->level());
    // The access log has its own switch (log.access); its lines are info.
    make("access")->set_level(spdlog::level::info);
    current_sink() = std::move(sink);
}

std::string reopen_log_file() {
    auto sink = current_sink();
    return sink ? sink->reopen() : std::string();
}

const std::string& log_file_path() {
    auto& sink = current_sink();
    return sink ? sink->path() : no_path;
}

void log_info_fields(std::string_view message, std::string_view fields_json) {
    auto logger = spdlog::get("fields");
    if (!logger) {
        spdlog::info("{} {}", message, fields_json);
        return;
    }
    if (!logger->should_log(spdlog::level::info)) return;
    std::string payload = R"({"message":)";
    append_json_string(payload, message);
    if (fields_json.size() > 2 && fields_json.front() == '{') {
        payload += ',';
        payload.append(fields_json.substr(1));
    } else {
        payload += '}';
    }
    logger->log(spdlog::level::info, spdlog::string_view_t(payload.data(), payload.size()));
}

}  // namespace corridor
