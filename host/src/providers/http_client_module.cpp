#include "providers/http_client.hpp"

#include "kioku/sdk/visibility.hpp"

#include <chrono>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

// The module kioku-http-client.so: Boost.Beast over TCP and OpenSSL. The host loads it on the
// first HttpPost (http_client.cpp), so a process that never calls a provider never maps
// OpenSSL, whose ~24,000 relocations were two thirds of every kioku start's dynamic linking.

namespace kioku::host::providers {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// Runs one asynchronous step to completion on `ioc` (the stream's expiry bounds it).
void RunStep(asio::io_context& ioc) {
  ioc.run();
  ioc.restart();
}

std::string Describe(const beast::error_code& ec, const char* step, int timeout_ms) {
  if (ec == beast::error::timeout || ec == asio::error::operation_aborted) {
    return std::string(step) + " timed out after " + std::to_string(timeout_ms) + " ms";
  }
  return std::string(step) + " failed: " + ec.message();
}

template <class Stream>
HttpPostResponse Exchange(Stream& stream, beast::tcp_stream& tcp_layer, asio::io_context& ioc,
                          const HttpPostRequest& r) {
  HttpPostResponse out;
  http::request<http::string_body> req{http::verb::post, r.target.empty() ? "/" : r.target, 11};
  req.set(http::field::host, r.url.host);
  req.set(http::field::user_agent, "kioku");
  req.set(http::field::content_type, "application/json");
  req.set(http::field::accept, "application/json");
  for (const auto& [name, value] : r.headers) req.set(name, value);
  req.body() = r.body;
  req.prepare_payload();

  beast::error_code ec;
  tcp_layer.expires_after(std::chrono::milliseconds(r.read_timeout_ms));
  http::async_write(stream, req, [&](beast::error_code e, std::size_t) { ec = e; });
  RunStep(ioc);
  if (ec) {
    out.error = Describe(ec, "sending the request", r.read_timeout_ms);
    return out;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(r.max_response_bytes);
  http::async_read(stream, buffer, parser, [&](beast::error_code e, std::size_t) { ec = e; });
  RunStep(ioc);
  if (ec) {
    out.error = Describe(ec, "reading the response", r.read_timeout_ms);
    return out;
  }
  auto res = parser.release();
  out.status = static_cast<int>(res.result_int());
  out.body = std::move(res.body());
  if (const auto it = res.find(http::field::retry_after); it != res.end()) {
    out.retry_after = std::string(it->value());
  }
  return out;
}

HttpPostResponse PostOverNetwork(const HttpPostRequest& r) {
  HttpPostResponse out;
  try {
    asio::io_context ioc;
    const auto connect_deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(r.connect_timeout_ms);

    tcp::resolver resolver(ioc);
    asio::steady_timer timer(ioc);
    beast::error_code ec;
    tcp::resolver::results_type endpoints;
    timer.expires_at(connect_deadline);
    timer.async_wait([&](beast::error_code e) {
      if (!e) resolver.cancel();
    });
    resolver.async_resolve(r.url.host, r.url.port, [&](beast::error_code e, tcp::resolver::results_type res) {
      ec = e;
      endpoints = std::move(res);
      timer.cancel();
    });
    RunStep(ioc);
    if (ec) {
      out.error = Describe(ec, ("resolving " + r.url.host).c_str(), r.connect_timeout_ms);
      return out;
    }

    beast::tcp_stream tcp_stream(ioc);
    tcp_stream.expires_at(connect_deadline);
    tcp_stream.async_connect(endpoints, [&](beast::error_code e, const tcp::endpoint&) { ec = e; });
    RunStep(ioc);
    if (ec) {
      out.error = Describe(ec, "connect", r.connect_timeout_ms);
      return out;
    }
    if (!r.url.tls) {
      out = Exchange(tcp_stream, tcp_stream, ioc, r);
      tcp_stream.socket().shutdown(tcp::socket::shutdown_both, ec);
      return out;
    }

    asio::ssl::context ssl(asio::ssl::context::tls_client);
    ssl.set_default_verify_paths();
    ssl.set_verify_mode(asio::ssl::verify_peer);
    beast::ssl_stream<beast::tcp_stream> stream(std::move(tcp_stream), ssl);
    if (!SSL_set_tlsext_host_name(stream.native_handle(), r.url.host.c_str())) {
      out.error = "TLS: could not set the server name";
      return out;
    }
    stream.set_verify_callback(asio::ssl::host_name_verification(r.url.host));
    beast::get_lowest_layer(stream).expires_at(connect_deadline);
    stream.async_handshake(asio::ssl::stream_base::client, [&](beast::error_code e) { ec = e; });
    RunStep(ioc);
    if (ec) {
      out.error = Describe(ec, "TLS handshake", r.connect_timeout_ms);
      return out;
    }
    out = Exchange(stream, beast::get_lowest_layer(stream), ioc, r);
    // A TLS close_notify exchange adds a round trip and often fails on servers that just
    // close; the answer is complete, so the socket is simply closed.
    beast::get_lowest_layer(stream).socket().close(ec);
    return out;
  } catch (const std::exception& e) {
    out.error = std::string("HTTP client error: ") + e.what();
    return out;
  }
}

}  // namespace
}  // namespace kioku::host::providers

/// The module's one entry point, looked up by HttpPost (http_client.cpp).
extern "C" KIOKU_EXPORT void kioku_http_post_v1(
    const kioku::host::providers::HttpPostRequest& request,
    kioku::host::providers::HttpPostResponse& response) {
  response = kioku::host::providers::PostOverNetwork(request);
}
