#include "extraction_eval.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "statements.hpp"
#include "transcript.hpp"

namespace kioku::episodic::testing {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string Norm(std::string_view s) {
  const std::string folded = FoldText(s, true);
  std::string out;
  for (char c : folded) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += c;
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool Matches(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  const std::string& longer = a.size() >= b.size() ? a : b;
  const std::string& shorter = a.size() >= b.size() ? b : a;
  return longer.find(shorter) != std::string::npos && shorter.size() * 10 >= longer.size() * 6;
}

std::string SubjectKey(std::string_view s) {
  std::string out;
  for (char c : FoldText(s, true)) out += c == ' ' ? '-' : c;
  return out;
}

struct Extracted {
  std::int64_t line;
  DurableStatement st;
};

std::vector<Extracted> ExtractFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string raw;
  std::unique_ptr<TranscriptParser> parser;
  ParsedBatch batch;
  std::int64_t line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    json j = json::parse(raw, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    if (!parser) {
      const Format f = DetectLineFormat(j);
      if (f == Format::kUnknown) continue;
      ParserContext ctx;
      ctx.default_session_id = "eval";
      parser = MakeParser(f, ctx);
    }
    parser->Feed(j, line_no, batch);
  }
  std::vector<Extracted> out;
  for (const auto& h : batch.human) {
    for (auto& st : FindDurableStatements(h.text)) out.push_back({h.line, std::move(st)});
  }
  return out;
}

}  // namespace

ExtractionFigures EvaluateExtraction(const fs::path& dir) {
  std::ifstream lf(dir / "labels.json");
  if (!lf) throw std::runtime_error("no labels.json in " + dir.string());
  const json labels = json::parse(lf);
  ExtractionFigures f;
  for (const auto& [file, lab] : labels.at("files").items()) {
    ++f.files;
    const auto got = ExtractFile(dir / file);
    std::vector<bool> used(got.size(), false);
    for (const auto& d : lab.at("durable")) {
      ++f.durable;
      const std::int64_t line = d.at("line").get<std::int64_t>();
      const std::string text = d.at("text").get<std::string>();
      const std::string where = file + ":" + std::to_string(line);
      const bool has_pair = d.contains("subject");
      if (has_pair) ++f.pairs_labelled;
      bool found = false;
      for (std::size_t i = 0; i < got.size() && !found; ++i) {
        if (got[i].line != line || !Matches(Norm(got[i].st.text), Norm(text))) continue;
        found = true;
        used[i] = true;
        const DurableStatement& st = got[i].st;
        if (st.kind == d.at("kind").get<std::string>()) {
          ++f.kinds_ok;
        } else {
          f.kind_errors.push_back(where + ": " + st.kind + " (want " + d.at("kind").get<std::string>() +
                                  "): " + text);
        }
        if (has_pair) {
          if (!st.subject.empty()) ++f.pairs_found;
          const bool ok = SubjectKey(st.subject) == SubjectKey(d.at("subject").get<std::string>()) &&
                          FoldText(st.value, true) == FoldText(d.at("value").get<std::string>(), true);
          if (ok) {
            ++f.pairs_ok;
          } else {
            f.pair_errors.push_back(where + ": got " + st.subject + "=" + st.value + " want " +
                                    d.at("subject").get<std::string>() + "=" +
                                    d.at("value").get<std::string>());
          }
        } else if (!st.subject.empty()) {
          f.pair_errors.push_back(where + ": unexpected " + st.subject + "=" + st.value + ": " + text);
        }
      }
      if (found) {
        ++f.durable_found;
      } else {
        f.missed.push_back(where + ": " + text);
      }
    }
    for (const auto& x : lab.at("lookalikes")) {
      ++f.lookalikes;
      const std::int64_t line = x.at("line").get<std::int64_t>();
      const std::string text = x.at("text").get<std::string>();
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i].line != line || !Matches(Norm(got[i].st.text), Norm(text))) continue;
        ++f.lookalikes_found;
        used[i] = true;
        f.leaked.push_back(file + ":" + std::to_string(line) + " [" + x.at("class").get<std::string>() +
                           "]: " + got[i].st.text + "  (" + got[i].st.why + ")");
        break;
      }
    }
    for (std::size_t i = 0; i < got.size(); ++i) {
      ++f.extracted;
      bool durable = false;
      for (const auto& d : lab.at("durable")) {
        durable = durable || (got[i].line == d.at("line").get<std::int64_t>() &&
                              Matches(Norm(got[i].st.text), Norm(d.at("text").get<std::string>())));
      }
      if (durable) ++f.extracted_durable;
      if (!used[i]) {
        f.extra.push_back(file + ":" + std::to_string(got[i].line) + ": " + got[i].st.text + "  (" +
                          got[i].st.why + ")");
      }
    }
  }
  return f;
}

std::string FormatFigures(const std::string& name, const ExtractionFigures& f, bool verbose) {
  std::ostringstream o;
  auto pct = [](double v) {
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(1);
    s << v * 100 << "%";
    return s.str();
  };
  o << name << ": " << f.files << " files\n"
    << "  durable captured   " << f.durable_found << "/" << f.durable << " = " << pct(f.Recall()) << "\n"
    << "  look-alikes caught " << f.lookalikes_found << "/" << f.lookalikes << " = "
    << pct(f.LookalikeRate()) << "\n"
    << "  precision          " << f.extracted_durable << "/" << f.extracted << " = "
    << pct(f.Precision()) << "\n"
    << "  kinds right        " << f.kinds_ok << "/" << f.durable_found << "\n"
    << "  subject/value      " << f.pairs_ok << "/" << f.pairs_labelled << " right ("
    << f.pairs_found << " with a subject)\n";
  if (verbose) {
    auto list = [&](const char* title, const std::vector<std::string>& v) {
      if (v.empty()) return;
      o << "  " << title << ":\n";
      for (const auto& s : v) o << "    " << s << "\n";
    };
    list("missed", f.missed);
    list("look-alikes captured", f.leaked);
    list("unlabelled extractions", f.extra);
    list("kind errors", f.kind_errors);
    list("subject/value errors", f.pair_errors);
  }
  return o.str();
}

}  // namespace kioku::episodic::testing
