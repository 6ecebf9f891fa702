#include "fake_openai_server.hpp"

#include <atomic>
#include <cctype>
#include <chrono>
#include <deque>
#include <limits>
#include <mutex>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

namespace kioku::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::vector<float> FakeOpenAiServer::VectorFor(const std::string& text, int dim) {
  std::vector<float> v(static_cast<std::size_t>(dim), 0.0f);
  std::string word;
  auto flush = [&] {
    if (word.empty()) return;
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : word) h = (h ^ c) * 1099511628211ull;
    v[h % static_cast<std::uint64_t>(dim)] += (h >> 40) & 1 ? 1.0f : -1.0f;
    word.clear();
  };
  for (unsigned char c : text) {
    if (std::isalnum(c)) {
      word += static_cast<char>(std::tolower(c));
    } else {
      flush();
    }
  }
  flush();
  return v;
}

struct FakeOpenAiServer::Impl {
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::thread thread;
  mutable std::mutex mu;
  Mode mode = Mode::kOk;
  Mode next_mode = Mode::kOk;
  int next_count = 0;
  int delay_ms = 0;
  int dim = 64;
  std::atomic<int> requests{0};
  std::atomic<int> chat_requests{0};
  std::deque<std::string> chat_replies;
  std::function<std::string(const std::string&)> chat_responder;
  std::string last_body, last_auth;
  unsigned short port = 0;

  void Accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec) return;
      Serve(std::move(socket));
      Accept();
    });
  }

  void Serve(tcp::socket socket) {
    beast::error_code ec;
    beast::flat_buffer buffer;
    http::request<http::string_body> req;
    http::read(socket, buffer, req, ec);
    if (ec) return;
    ++requests;
    Mode m;
    int delay, d;
    {
      std::lock_guard lock(mu);
      last_body = req.body();
      last_auth = std::string(req[http::field::authorization]);
      if (next_count > 0) {
        --next_count;
        m = next_mode;
      } else {
        m = mode;
      }
      delay = delay_ms;
      d = dim;
    }
    if (delay > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    if (m == Mode::kClose) {
      socket.close(ec);
      return;
    }
    http::response<http::string_body> res{http::status::ok, 11};
    res.set(http::field::content_type, "application/json");
    const nlohmann::json in = nlohmann::json::parse(req.body(), nullptr, false);
    const bool chat = req.target() == "/v1/chat/completions" && in.is_object() && in.contains("messages");
    if (chat) ++chat_requests;
    if (chat && (m == Mode::kOk || m == Mode::kWrongDim || m == Mode::kWrongCount || m == Mode::kNaN || m == Mode::kZero)) {
      std::string content = "{}";
      std::function<std::string(const std::string&)> responder;
      {
        std::lock_guard lock(mu);
        if (!chat_replies.empty()) {
          content = std::move(chat_replies.front());
          chat_replies.pop_front();
        } else {
          responder = chat_responder;
        }
      }
      if (responder) content = responder(req.body());
      nlohmann::json choice{{"index", 0},
                            {"message", {{"role", "assistant"}, {"content", content}}},
                            {"finish_reason", "stop"}};
      res.body() = nlohmann::json{{"object", "chat.completion"},
                                  {"model", in.value("model", "")},
                                  {"choices", nlohmann::json::array({choice})}}
                       .dump();
    } else if (chat && m == Mode::kMalformed) {
      res.body() = R"({"choices": [{"message": {"content": "{\"x)";
    } else if (!chat && (req.target() != "/v1/embeddings" || !in.is_object() || !in.contains("input"))) {
      res.result(http::status::not_found);
      res.body() = R"({"error":{"message":"unknown route or body"}})";
    } else if (m == Mode::kHttp500) {
      res.result(http::status::internal_server_error);
      res.body() = R"({"error":{"message":"boom"}})";
    } else if (m == Mode::kHttp429) {
      res.result(http::status::too_many_requests);
      res.set(http::field::retry_after, "0");
      res.body() = R"({"error":{"message":"slow down"}})";
    } else if (m == Mode::kHttp401) {
      res.result(http::status::unauthorized);
      res.body() = R"({"error":{"message":"bad key"}})";
    } else if (m == Mode::kMalformed) {
      res.body() = R"({"data": [{"embedding": [0.1, 0.2)";
    } else {
      if (in.contains("dimensions") && in["dimensions"].is_number_integer()) d = in["dimensions"].get<int>();
      const nlohmann::json& input = in["input"];
      std::vector<std::string> texts;
      if (input.is_string()) {
        texts.push_back(input.get<std::string>());
      } else {
        for (const auto& t : input) texts.push_back(t.is_string() ? t.get<std::string>() : "");
      }
      nlohmann::json data = nlohmann::json::array();
      for (std::size_t i = 0; i < texts.size(); ++i) {
        std::vector<float> v = VectorFor(texts[i], m == Mode::kWrongDim ? d + 1 : d);
        nlohmann::json e = nlohmann::json::array();
        for (float x : v) e.push_back(m == Mode::kZero ? 0.0f : x);
        if (m == Mode::kNaN) e[0] = "NaN";
        // Reverse order with explicit indexes: the client must sort by index.
        data.insert(data.begin(), nlohmann::json{{"object", "embedding"}, {"index", i}, {"embedding", e}});
      }
      if (m == Mode::kWrongCount && !data.empty()) data.erase(data.begin());
      res.body() = nlohmann::json{{"object", "list"}, {"model", in.value("model", "")}, {"data", data}}.dump();
    }
    res.prepare_payload();
    http::write(socket, res, ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
  }
};

FakeOpenAiServer::FakeOpenAiServer(int dim) : impl_(std::make_unique<Impl>()) {
  impl_->dim = dim;
  const tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
  impl_->acceptor.open(ep.protocol());
  impl_->acceptor.set_option(asio::socket_base::reuse_address(true));
  impl_->acceptor.bind(ep);
  impl_->acceptor.listen();
  impl_->port = impl_->acceptor.local_endpoint().port();
  impl_->Accept();
  impl_->thread = std::thread([this] { impl_->ioc.run(); });
}

FakeOpenAiServer::~FakeOpenAiServer() {
  impl_->ioc.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string FakeOpenAiServer::Url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port);
}

void FakeOpenAiServer::SetMode(Mode mode) {
  std::lock_guard lock(impl_->mu);
  impl_->mode = mode;
}

void FakeOpenAiServer::FailNext(int n, Mode mode) {
  std::lock_guard lock(impl_->mu);
  impl_->next_count = n;
  impl_->next_mode = mode;
}

void FakeOpenAiServer::SetDelayMs(int ms) {
  std::lock_guard lock(impl_->mu);
  impl_->delay_ms = ms;
}

void FakeOpenAiServer::SetDim(int dim) {
  std::lock_guard lock(impl_->mu);
  impl_->dim = dim;
}

int FakeOpenAiServer::Requests() const { return impl_->requests.load(); }

int FakeOpenAiServer::ChatRequests() const { return impl_->chat_requests.load(); }

void FakeOpenAiServer::PushChatReply(std::string content) {
  std::lock_guard lock(impl_->mu);
  impl_->chat_replies.push_back(std::move(content));
}

void FakeOpenAiServer::SetChatResponder(std::function<std::string(const std::string&)> responder) {
  std::lock_guard lock(impl_->mu);
  impl_->chat_responder = std::move(responder);
}

std::string FakeOpenAiServer::LastBody() const {
  std::lock_guard lock(impl_->mu);
  return impl_->last_body;
}

std::string FakeOpenAiServer::LastAuthorization() const {
  std::lock_guard lock(impl_->mu);
  return impl_->last_auth;
}

}  // namespace kioku::testing
