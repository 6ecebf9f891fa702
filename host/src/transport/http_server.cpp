#include "transport/http_server.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "logging.hpp"
#include "mcp/dispatcher.hpp"
#include "runtime.hpp"
#include "transport/http_push.hpp"
#include "transport/http_router.hpp"

namespace kioku::host {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

class Connection;

std::string EndpointText(const net::ip::address& address, std::uint16_t port) {
  return address.is_v6() ? "[" + address.to_string() + "]:" + std::to_string(port)
                         : address.to_string() + ":" + std::to_string(port);
}

net::ip::address ParseAddress(const std::string& text) {
  if (text == "localhost") return net::ip::make_address("127.0.0.1");
  beast::error_code ec;
  auto address = net::ip::make_address(text, ec);
  if (ec) {
    throw std::runtime_error("http listen address '" + text +
                             "' is not an IP address; use e.g. 127.0.0.1, ::1 or 0.0.0.0");
  }
  return address;
}

}  // namespace

void ParseListenAddress(std::string_view text, HttpServerOptions& options) {
  auto fail = [&] {
    return std::runtime_error("http listen address '" + std::string(text) +
                              "' is not ADDR:PORT; use e.g. 127.0.0.1:7077, [::1]:7077 or :7077");
  };
  std::string_view host;
  std::string_view port = text;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') throw fail();
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else if (const std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    if (text.find(':') != colon) throw fail();  // a bare IPv6 address needs brackets
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string_view::npos) throw fail();
  const unsigned long value = std::stoul(std::string(port));
  if (value > 65535) throw fail();
  if (!host.empty()) {
    ParseAddress(std::string(host));  // validates now, with a clear message
    options.address = std::string(host);
  }
  options.port = static_cast<std::uint16_t>(value);
}

struct HttpServer::Impl {
  Impl(Runtime& runtime_ref, mcp::Dispatcher& dispatcher_ref, HttpServerOptions opts)
      : runtime(runtime_ref), dispatcher(dispatcher_ref), options(std::move(opts)) {}

  void Accept();
  /// Admits `socket` (starts a Connection), answers it 503 when over a connection limit, or
  /// closes it when even the refusals are too many.
  void Admit(tcp::socket socket);
  void Unregister(Connection* connection);

  Runtime& runtime;
  mcp::Dispatcher& dispatcher;
  const HttpServerOptions options;
  std::unique_ptr<sdk::Logger> log = MakeLogger("http");

  // Destroyed after the I/O context (declared earlier): connections unregister on death.
  std::mutex mutex;
  std::condition_variable changed;
  struct Entry {
    std::weak_ptr<Connection> connection;
    net::ip::address peer;
    bool refused = false;  // answering 503: not counted against the limits
  };
  std::unordered_map<Connection*, Entry> connections;
  std::size_t admitted = 0;                            // entries that are not refused
  std::map<net::ip::address, std::size_t> per_peer;    // admitted entries per client address
  enum class State { kNew, kRunning, kStopping, kStopped } state = State::kNew;
  std::atomic<bool> stopping{false};

  std::unique_ptr<HttpRouter> router;
  net::io_context ioc{std::max(1, options.io_threads)};
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work_guard;
  std::optional<tcp::acceptor> acceptor;
  std::uint16_t port = 0;
  std::vector<std::thread> io_threads;
  // Declared last: destroyed (after join) before the context its queued tasks post to.
  std::optional<net::thread_pool> workers;
};

namespace {

HttpResponse PlainError(unsigned status, std::string message) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = sdk::DumpJson(nlohmann::json{{"error", std::move(message)}});
  return r;
}

/// One TCP connection: reads a request with a fresh parser, routes it, writes the answer,
/// repeats while keep-alive holds (Beast `http_server_async` / `advanced_server` shape).
/// All members are touched on the connection's strand only.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket&& socket, HttpServer::Impl& server) : stream_(std::move(socket)), server_(server) {}
  ~Connection() { server_.Unregister(this); }

  void Start() {
    net::dispatch(stream_.get_executor(), beast::bind_front_handler(&Connection::Read, shared_from_this()));
  }

  /// Answers `response` (a 503) without reading a request, then closes as Linger does:
  /// whatever the client sends meanwhile is discarded, so it reads the answer, not a reset.
  void Refuse(HttpResponse response) {
    net::dispatch(stream_.get_executor(), [self = shared_from_this(), response = std::move(response)]() mutable {
      self->refusing_ = true;
      self->lingering_ = true;
      self->keep_alive_ = false;
      self->Send(std::move(response));
    });
  }

  /// Part of Stop(): a connection waiting for its next request is closed now; one in the
  /// middle of a request finishes it and then closes (keep-alive is off while stopping).
  void DrainIfIdle() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      if (self->discarding_ || (self->reading_ && !(self->parser_ && self->parser_->got_some()))) {
        beast::error_code ec;
        self->stream_.socket().close(ec);
      }
    });
  }

 private:
  void Read() {
    if (server_.stopping.load()) return Close();
    parser_.emplace();  // a fresh parser per message: limits and state never leak over
    parser_->header_limit(static_cast<std::uint32_t>(server_.options.max_header_bytes));
    parser_->body_limit(server_.options.max_body_bytes);
    reading_ = true;
    // One deadline for the whole header, not per read: a client trickling a byte at a time
    // (slowloris) is cut off as surely as a silent one.
    stream_.expires_after(std::chrono::milliseconds(server_.options.header_timeout_ms));
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Connection::OnHeader, shared_from_this()));
  }

  void OnHeader(beast::error_code ec, std::size_t) {
    if (ec) return OnRead(ec, 0);
    if (parser_->is_done()) return OnRead(ec, 0);
    // curl sends "Expect: 100-continue" for bodies over 1 KiB and waits a second for it.
    auto expect = parser_->get().find(http::field::expect);
    if (expect != parser_->get().end() && beast::iequals(expect->value(), "100-continue")) {
      auto interim = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
      stream_.expires_after(std::chrono::milliseconds(server_.options.write_timeout_ms));
      http::async_write(stream_, *interim, [self = shared_from_this(), interim](beast::error_code wec, std::size_t) {
        if (wec) return self->Close();
        self->ReadBody();
      });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    stream_.expires_after(std::chrono::milliseconds(server_.options.read_timeout_ms));
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&Connection::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, std::size_t) {
    reading_ = false;
    if (ec == http::error::end_of_stream || ec == net::error::operation_aborted || ec == beast::error::timeout ||
        ec == net::error::connection_reset || ec == net::error::eof || ec == net::error::bad_descriptor) {
      return Close();
    }
    version_ = 11;
    keep_alive_ = false;
    if (ec == http::error::body_limit) {
      // The client is still sending the body: closing now would reset the connection and
      // it would see EPIPE/ECONNRESET instead of this answer. Send it, then read and drop the
      // rest (bounded) before closing.
      lingering_ = true;
      return Send(BodyTooLarge(std::string(parser_->get().target()), server_.options.max_body_bytes));
    }
    if (ec == http::error::header_limit) {
      return Send(PlainError(431, "request headers over " + std::to_string(server_.options.max_header_bytes) +
                                      " bytes"));
    }
    if (ec) {
      if (ec.category() == http::make_error_code(http::error::bad_target).category() && parser_->got_some()) {
        return Send(PlainError(400, "malformed HTTP request: " + ec.message()));
      }
      return Close();
    }

    auto message = parser_->release();
    version_ = message.version();
    keep_alive_ = message.keep_alive();
    HttpRequest request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    request.headers.reserve(16);
    for (const auto& field : message) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      request.headers.emplace_back(std::move(name), std::string(field.value()));
    }
    request.body = std::move(message.body());

    HttpRoute route;
    try {
      route = server_.router->Route(request);
    } catch (const std::exception& e) {
      server_.log->Error(std::string("http request failed: ") + e.what());
      return Send(PlainError(500, std::string("internal error: ") + e.what()));
    }
    if (!route.work) return Send(std::move(route.response));
    if (!route.events.empty()) return StartEventStream(std::move(route));
    // Tool calls leave the I/O thread; the answer comes back to this connection's strand.
    net::post(*server_.workers, [self = shared_from_this(), work = std::move(route.work)]() mutable {
      HttpResponse response;
      try {
        response = work();
      } catch (const std::exception& e) {
        response = PlainError(500, std::string("internal error: ") + e.what());
      } catch (...) {
        response = PlainError(500, "internal error");
      }
      net::post(self->stream_.get_executor(), [self, response = std::move(response)]() mutable {
        self->Send(std::move(response));
      });
    });
  }

  void Send(HttpResponse response) {
    auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(response.status),
                                                                   version_);
    res->set(http::field::server, "kioku");
    if (!response.content_type.empty()) {
      res->set(http::field::content_type, response.content_type);
      res->set(http::field::cache_control, "no-store");
    }
    for (auto& [name, value] : response.headers) res->insert(name, value);
    res->body() = std::move(response.body);
    res->keep_alive(keep_alive_ && !server_.stopping.load());
    if (res->keep_alive()) {
      // Tells clients (undici, Python) when an idle connection will be closed, so they stop
      // reusing it before the server drops it at header_timeout_ms.
      res->set(http::field::keep_alive,
               "timeout=" + std::to_string(std::max(1, server_.options.header_timeout_ms / 1000)));
    }
    res->prepare_payload();
    // Beast 1.74 has no message_generator: the response lives in the handler until written.
    stream_.expires_after(std::chrono::milliseconds(server_.options.write_timeout_ms));
    http::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
      if (!ec && self->lingering_) return self->Linger();
      if (ec || res->need_eof()) return self->Close();
      self->Read();
    });
  }

  // The SSE answer of a legacy tools/call (http_push.hpp): a chunked 200 carrying the
  // queued server requests at once, then — once the call has run on a worker (it waits for
  // the client's reply to them) — its JSON-RPC response as the last event.
  void StartEventStream(HttpRoute route) {
    auto header = std::make_shared<http::response<http::empty_body>>(http::status::ok, version_);
    header->set(http::field::server, "kioku");
    header->set(http::field::content_type, "text/event-stream");
    header->set(http::field::cache_control, "no-store");
    header->keep_alive(keep_alive_ && !server_.stopping.load());
    header->chunked(true);
    auto serializer = std::make_shared<http::response_serializer<http::empty_body>>(*header);
    std::string first;
    for (const auto& event : route.events) first += SseEvent(event);
    stream_.expires_after(std::chrono::milliseconds(server_.options.write_timeout_ms));
    http::async_write_header(
        stream_, *serializer,
        [self = shared_from_this(), header, serializer, first = std::move(first),
         work = std::move(route.work)](beast::error_code ec, std::size_t) mutable {
          if (ec) return self->Close();
          self->WriteChunk(std::move(first), [self, header, work = std::move(work)]() mutable {
            net::post(*self->server_.workers, [self, header, work = std::move(work)]() mutable {
              HttpResponse response;
              try {
                response = work();
              } catch (const std::exception& e) {
                self->server_.log->Error(std::string("http tool call failed: ") + e.what());
              }
              net::post(self->stream_.get_executor(), [self, header, body = std::move(response.body)]() mutable {
                auto finish = [self, header] { self->EndEventStream(!header->keep_alive()); };
                if (body.empty()) return finish();  // cancelled: no response is due
                self->WriteChunk(SseEvent(body), std::move(finish));
              });
            });
          });
        });
  }

  void WriteChunk(std::string text, std::function<void()> then) {
    auto bytes = std::make_shared<std::string>(std::move(text));
    stream_.expires_after(std::chrono::milliseconds(server_.options.write_timeout_ms));
    net::async_write(stream_, http::make_chunk(net::const_buffer(bytes->data(), bytes->size())),
                     [self = shared_from_this(), bytes, then = std::move(then)](beast::error_code ec, std::size_t) {
                       if (ec) return self->Close();
                       then();
                     });
  }

  void EndEventStream(bool close) {
    stream_.expires_after(std::chrono::milliseconds(server_.options.write_timeout_ms));
    net::async_write(stream_, http::make_chunk_last(),
                     [self = shared_from_this(), close](beast::error_code ec, std::size_t) {
                       if (ec || close) return self->Close();
                       self->Read();
                     });
  }

  // "Lingering close" (RFC 9112 9.6): after the answer, stop sending and discard what the
  // client still sends until it is done, at most max_discard_bytes or one read timeout.
  void Linger() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    discarding_ = true;  // the answer is out: Stop() may close this connection at once
    discarded_ = buffer_.size();
    buffer_.consume(buffer_.size());
    DiscardSome();
  }

  void DiscardSome() {
    // A refused connection never had a request read: it gets little time and room.
    const std::size_t limit = refusing_ ? kRefusedDiscardBytes : server_.options.max_discard_bytes;
    if (ec_closed_ || server_.stopping.load() || discarded_ > limit) return Drop();
    if (!scratch_) scratch_ = std::make_unique<std::array<char, 16384>>();
    stream_.expires_after(std::chrono::milliseconds(refusing_ ? server_.options.header_timeout_ms
                                                              : server_.options.read_timeout_ms));
    stream_.async_read_some(net::buffer(*scratch_), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      if (ec) return self->Drop();
      self->discarded_ += n;
      self->DiscardSome();
    });
  }

  void Drop() {
    ec_closed_ = true;
    beast::error_code ec;
    stream_.socket().close(ec);
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  beast::tcp_stream stream_;
  HttpServer::Impl& server_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool reading_ = false;
  static constexpr std::size_t kRefusedDiscardBytes = 64 * 1024;
  bool lingering_ = false;  // answering an oversized body: discard the rest, then close
  bool refusing_ = false;   // answering 503 (over a connection limit)
  bool ec_closed_ = false;
  bool discarding_ = false;
  std::size_t discarded_ = 0;
  std::unique_ptr<std::array<char, 16384>> scratch_;
  unsigned version_ = 11;
  bool keep_alive_ = false;
};

}  // namespace

void HttpServer::Impl::Unregister(Connection* connection) {
  std::lock_guard lock(mutex);
  auto it = connections.find(connection);
  if (it == connections.end()) return;
  if (!it->second.refused) {
    --admitted;
    if (auto peer = per_peer.find(it->second.peer); peer != per_peer.end() && --peer->second == 0) per_peer.erase(peer);
  }
  connections.erase(it);
  changed.notify_all();
}

void HttpServer::Impl::Admit(tcp::socket socket) {
  beast::error_code ec;
  const net::ip::address peer = socket.remote_endpoint(ec).address();
  if (ec) return;  // already gone
  std::string refusal;
  std::shared_ptr<Connection> connection;
  {
    std::lock_guard lock(mutex);
    if (connections.size() >= 2 * options.max_connections) {
      // Refusals are bounded too: past this, a flood only costs an accept and a close.
      log->Warn("http: " + std::to_string(connections.size()) + " connections open; closing another unanswered");
      socket.close(ec);
      return;
    }
    const auto from_peer = per_peer.find(peer);
    const std::size_t peer_count = from_peer == per_peer.end() ? 0 : from_peer->second;
    if (admitted >= options.max_connections) {
      refusal = "Service Unavailable: " + std::to_string(admitted) +
                " connections are open (server.http.max_connections); close idle connections or retry later";
    } else if (peer_count >= options.max_connections_per_ip) {
      refusal = "Service Unavailable: " + std::to_string(peer_count) + " connections are open from " +
                peer.to_string() + " (server.http.max_connections_per_ip); close idle connections or retry later";
    }
    connection = std::make_shared<Connection>(std::move(socket), *this);
    connections.emplace(connection.get(), Entry{connection, peer, !refusal.empty()});
    if (refusal.empty()) {
      ++admitted;
      ++per_peer[peer];
    }
  }
  if (refusal.empty()) return connection->Start();
  log->Warn("http: refusing a connection from " + peer.to_string() + ": " + refusal);
  HttpResponse response = PlainError(503, refusal);
  response.headers.emplace_back("Retry-After", "1");
  connection->Refuse(std::move(response));
}

void HttpServer::Impl::Accept() {
  acceptor->async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted || !acceptor->is_open()) return;
    if (ec) {
      log->Warn("http accept failed: " + ec.message());
    } else if (!stopping.load()) {
      Admit(std::move(socket));
    }
    Accept();
  });
}

HttpServer::HttpServer(Runtime& runtime, mcp::Dispatcher& dispatcher, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(runtime, dispatcher, std::move(options))) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Start() {
  Impl& s = *impl_;
  {
    std::lock_guard lock(s.mutex);
    if (s.state != Impl::State::kNew) throw std::runtime_error("HttpServer::Start called twice");
  }
  const net::ip::address address = ParseAddress(s.options.address);
  const std::string where = EndpointText(address, s.options.port);
  if (!address.is_loopback() && s.options.tokens.empty()) {
    throw std::runtime_error("refusing to serve HTTP on " + where +
                             " without bearer tokens: configure server.http.tokens (token -> agent_id) or "
                             "listen on 127.0.0.1");
  }
  s.router = std::make_unique<HttpRouter>(s.runtime, s.dispatcher, s.options, address.is_loopback());
  tcp::acceptor acceptor(net::make_strand(s.ioc));
  beast::error_code ec;
  const tcp::endpoint endpoint(address, s.options.port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error("cannot listen on " + where + ": " + ec.message());
  s.port = acceptor.local_endpoint().port();
  s.acceptor.emplace(std::move(acceptor));

  s.workers.emplace(static_cast<std::size_t>(std::max(1, s.options.worker_threads)));
  s.work_guard.emplace(s.ioc.get_executor());
  s.Accept();
  for (int i = 0; i < std::max(1, s.options.io_threads); ++i) {
    s.io_threads.emplace_back([&s] {
      // Handlers do not throw (see Connection); should one, log it and keep serving.
      for (;;) {
        try {
          s.ioc.run();
          return;
        } catch (const std::exception& e) {
          s.log->Error(std::string("http I/O thread: ") + e.what());
        }
      }
    });
  }
  {
    std::lock_guard lock(s.mutex);
    s.state = Impl::State::kRunning;
  }
  s.log->Info("serving MCP over HTTP on " + EndpointText(address, s.port) + "/mcp");
}

std::uint16_t HttpServer::Port() const { return impl_->port; }

void HttpServer::Stop() {
  Impl& s = *impl_;
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::unique_lock lock(s.mutex);
    if (s.state == Impl::State::kNew) {
      s.state = Impl::State::kStopped;
      s.changed.notify_all();
      return;
    }
    if (s.state != Impl::State::kRunning) {  // another thread is stopping: wait for it
      s.changed.wait(lock, [&] { return s.state == Impl::State::kStopped; });
      return;
    }
    s.state = Impl::State::kStopping;
    s.stopping.store(true);
    for (auto& [raw, entry] : s.connections) {
      if (auto c = entry.connection.lock()) live.push_back(std::move(c));
    }
  }
  net::post(s.acceptor->get_executor(), [&s] {
    beast::error_code ec;
    s.acceptor->close(ec);
  });
  for (auto& c : live) c->DrainIfIdle();
  live.clear();  // our references must not keep connections alive
  {
    std::unique_lock lock(s.mutex);
    const bool drained = s.changed.wait_for(lock, std::chrono::milliseconds(std::max(0, s.options.drain_timeout_ms)),
                                            [&] { return s.connections.empty(); });
    if (!drained) {
      s.log->Warn("http: " + std::to_string(s.connections.size()) + " connection(s) still busy after " +
                  std::to_string(s.options.drain_timeout_ms) + " ms; closing them");
    }
  }
  s.work_guard.reset();
  s.ioc.stop();
  for (auto& t : s.io_threads) t.join();
  s.io_threads.clear();
  s.workers->stop();  // queued calls are dropped; running ones finish
  s.workers->join();
  {
    std::lock_guard lock(s.mutex);
    s.state = Impl::State::kStopped;
  }
  s.changed.notify_all();
  s.log->Info("http server stopped");
}

void HttpServer::Wait() {
  std::unique_lock lock(impl_->mutex);
  impl_->changed.wait(lock, [&] { return impl_->state == Impl::State::kStopped; });
}

void HttpServer::Run(const std::atomic<bool>& stop) {
  bool fresh;
  {
    std::lock_guard lock(impl_->mutex);
    fresh = impl_->state == Impl::State::kNew;
  }
  if (fresh) Start();
  std::unique_lock lock(impl_->mutex);
  while (!stop.load() && impl_->state == Impl::State::kRunning) {
    impl_->changed.wait_for(lock, std::chrono::milliseconds(50));
  }
  lock.unlock();
  Stop();
}

}  // namespace kioku::host
