#include "kioku/sdk/result_page.hpp"

#include <cstdint>
#include <string>

#include "kioku/sdk/text.hpp"

namespace kioku::sdk {

namespace {
constexpr std::string_view kPrefix = "o:";
}  // namespace

std::size_t ResultRoom(const CallContext& ctx) {
  return ctx.result_budget_bytes == 0 ? SIZE_MAX : ctx.result_budget_bytes * 7 / 8;
}

std::size_t RowBytes(const Json& item, std::string_view line) { return line.size() + DumpJson(item).size(); }

std::size_t CursorOffset(const Json& args, std::string_view tool) {
  auto it = args.find("cursor");
  if (it == args.end() || it->is_null()) return 0;
  const std::string text = it->is_string() ? it->get<std::string>() : it->dump();
  const bool digits = text.size() > kPrefix.size() && text.size() <= kPrefix.size() + 9 &&
                      text.compare(0, kPrefix.size(), kPrefix) == 0 &&
                      text.find_first_not_of("0123456789", kPrefix.size()) == std::string::npos;
  if (!digits) {
    throw ToolError("cursor '" + TruncateUtf8(text, 40) + "' is not one " + std::string(tool) +
                    " returned; send next_cursor from the previous page, or no cursor for the first");
  }
  return static_cast<std::size_t>(std::stoul(text.substr(kPrefix.size())));
}

bool ResultPage::Offer(std::size_t bytes) {
  if (!closed_ && shown_ < limit_ && (shown_ == 0 || used_ + bytes <= room_)) {
    used_ += bytes;
    ++shown_;
    return true;
  }
  if (!closed_) cut_by_room_ = shown_ < limit_;
  closed_ = true;
  ++omitted_;
  return false;
}

std::string ResultPage::NextCursor() const {
  return omitted_ == 0 ? std::string() : std::string(kPrefix) + std::to_string(offset_ + shown_);
}

void ResultPage::Describe(Json& out) const {
  out["omitted"] = omitted_;
  if (omitted_ > 0) out["next_cursor"] = NextCursor();
}

std::string ResultPage::MoreText(std::string_view tool) const {
  if (omitted_ == 0) return {};
  return "… " + std::to_string(omitted_) + " more" + (cut_by_room_ ? " (result size cap)" : "") + ": call " +
         std::string(tool) + " again with cursor \"" + NextCursor() + "\"";
}

}  // namespace kioku::sdk
