#include "bookmarks_plugin.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/args.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/schema.hpp"
#include "kioku/sdk/settings.hpp"
#include "kioku/sdk/sql.hpp"

namespace bookmarks {

namespace sdk = kioku::sdk;
using sdk::Json;

BookmarksPlugin::BookmarksPlugin(sdk::HostServices& host)
    : host_(host),
      max_per_project_(host.Settings().at("max_per_project").get<std::int64_t>()),
      default_tag_(host.Settings().at("default_tag").get<std::string>()) {}

Json BookmarksPlugin::SettingsSchema() {
  using namespace sdk::schema;
  return sdk::Settings({
      {"max_per_project", sdk::Setting(Integer(1, 100000, "Bookmarks kept per project"), 1000)},
      {"default_tag", sdk::Setting(String(40, "Tag of a bookmark sent without one", 1), "misc")},
  });
}

std::string BookmarksPlugin::Instructions() const {
  return "bookmark_add saves a URL for this project; bookmark_list shows them.";
}

std::vector<sdk::Migration> BookmarksPlugin::Migrations() const {
  return {{1, "bookmarks table",
           "CREATE TABLE bookmarks_items (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, "
           "url TEXT NOT NULL, title TEXT NOT NULL, tag TEXT NOT NULL, "
           "created_at INTEGER NOT NULL);"
           "CREATE INDEX bookmarks_by_project ON bookmarks_items (project_id, tag);",
           {}}};
}

void BookmarksPlugin::Register(sdk::Registrar& registrar) {
  using namespace sdk::schema;
  sdk::ToolSpec add;
  add.name = "bookmark_add";
  add.title = "Add a bookmark";
  add.description = "Save a URL with a title (and optional tag) for the current project.";
  add.input_schema = Object({{"url", String(2000, "", 1)},
                             {"title", String(200, "", 1)},
                             {"tag", String(40)}},
                            {"url", "title"});
  add.output_schema = Output({{"id", Type("string")}, {"count", Type("integer")}}, {"id", "count"});
  registrar.AddTool(add, [this](const Json& a, const sdk::CallContext& c) { return Add(a, c); });

  sdk::ToolSpec list;
  list.name = "bookmark_list";
  list.title = "List bookmarks";
  list.description = "This project's bookmarks, newest first; filter by tag.";
  list.input_schema = Object({{"tag", String(40)}, {"limit", Integer(1, 100)}});
  list.output_schema = Output({{"bookmarks", Array(Output({{"id", Type("string")},
                                                           {"url", Type("string")},
                                                           {"title", Type("string")},
                                                           {"tag", Type("string")},
                                                           {"created_at", Type("string")}}),
                                                   100)}},
                              {"bookmarks"});
  list.annotations.read_only = true;
  registrar.AddTool(list, [this](const Json& a, const sdk::CallContext& c) { return List(a, c); });
}

sdk::ToolResult BookmarksPlugin::Add(const Json& args, const sdk::CallContext& ctx) {
  sdk::ScreenSecrets(args);  // nothing secret-looking is stored
  const std::string url = sdk::RequiredTextArg(args, "url", 8000);
  const std::string title = sdk::RequiredTextArg(args, "title", 800);
  const std::string tag = sdk::TextArg(args, "tag", 160).value_or(default_tag_);
  const std::int64_t now = host_.GetClock().NowMs();
  const std::string id = sdk::NewId(now);
  SQLite::Database& db = host_.Db();
  std::int64_t count = 0;
  sdk::WithWriteTransaction(db, [&] {
    SQLite::Statement n(db, "SELECT count(*) FROM bookmarks_items WHERE project_id = ?");
    sdk::Bind(n, ctx.caller.project_id);
    n.executeStep();
    count = n.getColumn(0).getInt64();
    if (count >= max_per_project_) {
      throw sdk::ToolError("this project already has " + std::to_string(count) +
                           " bookmarks (max_per_project); remove some first");
    }
    SQLite::Statement ins(db, "INSERT INTO bookmarks_items VALUES (?, ?, ?, ?, ?, ?)");
    sdk::Bind(ins, id, ctx.caller.project_id, url, title, tag, now);
    ins.exec();
    ++count;
  });
  return sdk::ToolResult::Ok("saved " + id + " (" + tag + ")", {{"id", id}, {"count", count}});
}

sdk::ToolResult BookmarksPlugin::List(const Json& args, const sdk::CallContext& ctx) {
  sdk::SqlWhere where;
  where.Equal("project_id", ctx.caller.project_id).Equal("tag", sdk::TextArg(args, "tag", 160));
  SQLite::Statement q(host_.Db(),
                      "SELECT id, url, title, tag, created_at FROM bookmarks_items" +
                          where.Sql() + " ORDER BY id DESC LIMIT ?");
  std::vector<sdk::SqlValue> values = where.Values();
  values.emplace_back(std::int64_t{args.value("limit", 20)});
  sdk::BindAll(q, values);
  Json items = Json::array();
  std::string text;
  while (q.executeStep()) {
    items.push_back({{"id", q.getColumn(0).getString()},
                     {"url", q.getColumn(1).getString()},
                     {"title", q.getColumn(2).getString()},
                     {"tag", q.getColumn(3).getString()},
                     {"created_at", sdk::FormatRfc3339(q.getColumn(4).getInt64())}});
    text += q.getColumn(2).getString() + " <" + q.getColumn(1).getString() + ">\n";
  }
  if (items.empty()) text = "no bookmarks";
  return sdk::ToolResult::Ok(text, {{"bookmarks", items}});
}

}  // namespace bookmarks
