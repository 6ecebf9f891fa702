// libFuzzer target for the MCP dispatcher and the schema-violation messages.
//
// Build (clang only; every library instrumented for coverage):
//   cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKIOKU_FUZZ=ON -DKIOKU_LAYERS="" \
//     -DKIOKU_BUILD_BENCH=OFF -DCMAKE_CXX_COMPILER=clang++-14 \
//     -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer"
//   cmake --build build/fuzz --target dispatcher_fuzz
//   ./build/fuzz/bin/dispatcher_fuzz -max_total_time=60 tests/fuzz/corpus
//
// Input: the first byte picks the mode; the rest is
//   even: one JSON-RPC message as a transport would hand it to Dispatcher::HandleText;
//   odd:  a JSON value validated against a schema using every keyword tools use.
// Checked: no crash or sanitizer report; every response is one JSON-RPC 2.0 object with
// exactly one of result/error and valid UTF-8; every violation is one "<path>: ..." line.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <unistd.h>

#include "json_schema.hpp"
#include "kioku/sdk/text.hpp"
#include "mcp/dispatcher.hpp"
#include "runtime.hpp"

namespace {

using nlohmann::json;

const json& RichSchema() {
  static const json schema = json::parse(R"({
    "type": "object",
    "properties": {
      "text": {"type": "string", "minLength": 1, "maxLength": 64},
      "kind": {"type": "string", "enum": ["fact", "decision", "lesson"]},
      "importance": {"type": "integer", "minimum": 1, "maximum": 10},
      "weight": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
      "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "maxItems": 4, "uniqueItems": true},
      "scope": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"],
                "additionalProperties": false},
      "when": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "integer", "minimum": 0}]},
      "one": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 5}]},
      "items": {"type": "array", "items": {"$ref": "#/definitions/item"}},
      "extra": {"type": "object", "patternProperties": {"^x_": {"type": "boolean"}},
                "additionalProperties": {"type": "null"}},
      "nullable": {"type": ["string", "null"], "const": "fixed"}
    },
    "required": ["text"],
    "additionalProperties": false,
    "definitions": {"item": {"type": "object", "properties": {"id": {"type": "string", "maxLength": 8}},
                             "required": ["id"], "additionalProperties": false}}
  })");
  return schema;
}

class FuzzPlugin final : public kioku::sdk::Plugin {
 public:
  explicit FuzzPlugin(kioku::sdk::HostServices&) {}
  void Register(kioku::sdk::Registrar& r) override {
    kioku::sdk::ToolSpec echo;
    echo.name = "fuzz_echo";
    echo.description = "Echoes its arguments.";
    echo.input_schema = RichSchema();
    echo.output_schema = json{{"type", "object"}};
    r.AddTool(echo, [](const json& args, const kioku::sdk::CallContext&) {
      return kioku::sdk::ToolResult::Ok(args.value("text", ""), args);
    });
    kioku::sdk::ToolSpec fail;
    fail.name = "fuzz_fail";
    fail.description = "Fails.";
    r.AddTool(fail, [](const json&, const kioku::sdk::CallContext&) -> kioku::sdk::ToolResult {
      throw kioku::sdk::ToolError("always fails");
    });
  }
};

struct State {
  std::filesystem::path dir;
  std::unique_ptr<kioku::host::Runtime> runtime;
  std::unique_ptr<kioku::host::mcp::Dispatcher> dispatcher;
  kioku::host::JsonSchema schema{RichSchema()};
  kioku::host::mcp::Session session;
};

State& Init() {
  static State* state = [] {
    auto* s = new State;
    s->dir = std::filesystem::temp_directory_path() / ("kioku-fuzz-" + std::to_string(::getpid()));
    kioku::host::RuntimeOptions o;
    o.data_dir = s->dir;
    o.clock = std::make_shared<kioku::sdk::ManualClock>();
    s->runtime = std::make_unique<kioku::host::Runtime>(o);
    s->runtime->AddPlugin("fuzz", [](kioku::sdk::HostServices& h) { return std::make_unique<FuzzPlugin>(h); });
    s->runtime->Start();
    kioku::host::mcp::DispatcherOptions d;
    d.page_size = 1;
    s->dispatcher = std::make_unique<kioku::host::mcp::Dispatcher>(*s->runtime, d);
    s->session.id = "fuzz";
    std::atexit([] { std::filesystem::remove_all(Init().dir); });
    return s;
  }();
  return *state;
}

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  State& s = Init();
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) == 0) {
    const std::string out = s.dispatcher->HandleText(text, s.session);
    if (out.empty()) return 0;
    Check(kioku::sdk::IsValidUtf8(out));
    const json response = json::parse(out);
    Check(response.is_object() && response.value("jsonrpc", "") == "2.0");
    Check(response.contains("result") != response.contains("error"));
    Check(response.contains("id") || response.contains("error"));  // a fault may lack an id
    return 0;
  }
  json error;
  auto value = kioku::host::mcp::Dispatcher::ParseMessage(text, error);
  if (!value) return 0;
  for (const auto& line : s.schema.Validate(*value)) {
    Check(!line.empty() && line.find('\n') == std::string::npos && line.find(": ") != std::string::npos);
    Check(line.size() < 2048);
  }
  return 0;
}
