// Build step: writes the embedded default config (config/kioku.yaml) converted to JSON as a
// C++ source, so a start-up without a config file parses JSON (~0.1 ms) instead of
// 14 KB of commented YAML (~3 ms, yaml-cpp, once per `kioku call` and hook).
//   kioku_config_json IN.yaml OUT.cpp
#include <fstream>
#include <iostream>
#include <sstream>

#include "yaml_json.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: kioku_config_json IN.yaml OUT.cpp\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "kioku_config_json: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string json;
  try {
    json = kioku::host::YamlToJson(text.str()).dump();
  } catch (const std::exception& e) {
    std::cerr << "kioku_config_json: " << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
  if (json.find(")kiokujson\"") != std::string::npos) {
    std::cerr << "kioku_config_json: the config holds the raw-string delimiter )kiokujson\"\n";
    return 1;
  }
  std::ofstream out(argv[2]);
  out << "// Generated from config/kioku.yaml at build time (host/tools/config_json.cpp); edit that file.\n"
         "#include \"config.hpp\"\n\nnamespace kioku::host {\n\n"
         "const std::string& EmbeddedDefaultConfigJson() {\n"
         "  static const std::string text = R\"kiokujson("
      << json << ")kiokujson\";\n  return text;\n}\n\n}  // namespace kioku::host\n";
  return out ? 0 : 1;
}
