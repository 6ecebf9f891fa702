#pragma once
/// @file fake_openai_server.hpp
/// A fake OpenAI-compatible embeddings and chat server for tests: Boost.Beast on
/// 127.0.0.1, port 0, one thread. `POST /v1/embeddings` answers deterministic vectors (a
/// hashed bag of words, so texts sharing words are close); `POST /v1/chat/completions`
/// answers scripted contents (PushChatReply, else the responder, else "{}"). Both can be
/// told to be slow, fail, answer malformed JSON (for chat: a broken envelope), wrong
/// dimensions, NaN or zero vectors, HTTP 429 or 500. Beast stays in the .cpp.

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kioku::testing {

class FakeOpenAiServer {
 public:
  enum class Mode { kOk, kHttp500, kHttp429, kHttp401, kMalformed, kWrongDim, kWrongCount, kNaN, kZero, kClose };

  explicit FakeOpenAiServer(int dim = 64);
  ~FakeOpenAiServer();
  FakeOpenAiServer(const FakeOpenAiServer&) = delete;
  FakeOpenAiServer& operator=(const FakeOpenAiServer&) = delete;

  /// "http://127.0.0.1:<port>".
  std::string Url() const;
  /// How every request is answered from now on.
  void SetMode(Mode mode);
  /// The next `n` requests get `mode`, later ones the SetMode mode.
  void FailNext(int n, Mode mode);
  /// Delay before answering (ms); a client with a shorter read timeout gives up.
  void SetDelayMs(int ms);
  void SetDim(int dim);
  /// The content of the next chat answer (queued; each reply is used once).
  void PushChatReply(std::string content);
  /// Computes a chat answer's content from the request body when no reply is queued.
  void SetChatResponder(std::function<std::string(const std::string& request_body)> responder);
  int ChatRequests() const;

  int Requests() const;
  /// The last request's body and Authorization header.
  std::string LastBody() const;
  std::string LastAuthorization() const;

  /// The vector the server returns for `text` (hashed bag of lowercase words, unnormalized).
  static std::vector<float> VectorFor(const std::string& text, int dim);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kioku::testing
