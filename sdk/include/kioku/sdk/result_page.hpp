#pragma once
/// @file result_page.hpp
/// Fitting a listing under the host's result cap (CallContext::result_budget_bytes): a
/// tool shows rows in its stable order until `limit` or the byte room runs out, says how
/// many it left out (`omitted`) and where to go on (an offset cursor). One way for every
/// layer; semantic memory_list and the episodic tools follow the same shape.
///
///   sdk::ResultPage page(limit, sdk::ResultRoom(ctx) - header.size());
///   for (each row from the cursor's offset on) {
///     if (page.Offer(sdk::RowBytes(json, line))) { list.push_back(json); text += line; }
///   }
///   page.Describe(out);            // "omitted" and, when some are, "next_cursor"
///   text += page.MoreText("claim_list");

#include <cstddef>
#include <string>
#include <string_view>

#include "kioku/sdk/json.hpp"
#include "kioku/sdk/tool.hpp"

namespace kioku::sdk {

/// Bytes a tool's listing may fill: 7/8 of ctx.result_budget_bytes (the rest is headroom
/// for the fields around the list and the MCP envelope); SIZE_MAX when there is no cap.
std::size_t ResultRoom(const CallContext& ctx);

/// Bytes one row costs in a result: its text line plus its serialized JSON.
std::size_t RowBytes(const Json& item, std::string_view line);

/// The offset a `cursor` argument names: 0 when `args` has none; throws ToolError naming
/// `tool` for a cursor no ResultPage wrote ("send next_cursor from the previous page").
std::size_t CursorOffset(const Json& args, std::string_view tool);

/// One page of a listing that starts at `offset` (CursorOffset).
class ResultPage {
 public:
  /// `limit`: most rows shown (the caller's `limit`); `room`: bytes the rows may take.
  ResultPage(std::size_t offset, std::size_t limit, std::size_t room)
      : offset_(offset), limit_(limit), room_(room) {}

  /// Offers the next row in order; true when it is shown. Once a row is refused (over
  /// limit or room) every later one is too, so the page stays contiguous and next_cursor
  /// is offset + shown. The first row is shown even when it alone exceeds the room (the
  /// caller has already cut its long fields): a page never stalls on one row.
  bool Offer(std::size_t bytes);

  std::size_t Shown() const { return shown_; }
  /// Rows offered and refused: the rows after this page when every match was offered.
  std::size_t Omitted() const { return omitted_; }
  /// True when the room (not `limit`) ended the page.
  bool CutByRoom() const { return cut_by_room_; }
  /// The cursor of the next page ("" when nothing was omitted).
  std::string NextCursor() const;
  /// Sets out["omitted"] and, when rows were omitted, out["next_cursor"].
  void Describe(Json& out) const;
  /// "" when nothing was omitted; else a line such as "… 12 more (result size cap): call
  /// claim_list again with cursor "o:40"".
  std::string MoreText(std::string_view tool) const;

 private:
  std::size_t offset_;
  std::size_t limit_;
  std::size_t room_;
  std::size_t used_ = 0;
  std::size_t shown_ = 0;
  std::size_t omitted_ = 0;
  bool closed_ = false;
  bool cut_by_room_ = false;
};

}  // namespace kioku::sdk
